from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.keep_counts_by_kind import KeepCountsByKind


T = TypeVar("T", bound="KeepCounts")


@_attrs_define
class KeepCounts:
    """The keep guard's figures: in all, and by kind.

    Attributes:
        checked (int):
        present (int):
        appended (int):
        parked (int):
        invented (int): Identifiers the model invented, marked `[unverified]`.
        by_kind (KeepCountsByKind): By kind: request, prohibition, path, url, id, command, quantity, file_changed.
    """

    checked: int
    present: int
    appended: int
    parked: int
    invented: int
    by_kind: KeepCountsByKind
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checked = self.checked

        present = self.present

        appended = self.appended

        parked = self.parked

        invented = self.invented

        by_kind = self.by_kind.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checked": checked,
                "present": present,
                "appended": appended,
                "parked": parked,
                "invented": invented,
                "by_kind": by_kind,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.keep_counts_by_kind import KeepCountsByKind  # noqa: PLC0415

        d = dict(src_dict)
        checked = d.pop("checked")

        present = d.pop("present")

        appended = d.pop("appended")

        parked = d.pop("parked")

        invented = d.pop("invented")

        by_kind = KeepCountsByKind.from_dict(d.pop("by_kind"))

        keep_counts = cls(
            checked=checked,
            present=present,
            appended=appended,
            parked=parked,
            invented=invented,
            by_kind=by_kind,
        )

        keep_counts.additional_properties = d
        return keep_counts

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
