from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="KindCounts")


@_attrs_define
class KindCounts:
    """What became of a summary's must-keep items (SPEC §4).

    Attributes:
        checked (int): Items the summary was to carry.
        present (int): Already in the writer's text, word for word.
        appended (int): Added by compactd: the latest request where things stand, the rest
            under `Kept word for word:`.
        parked (int): Did not fit the budget: in the keep set and the stored turns only.
        invented (int): In the model's text but in nothing it was given (no stored turn,
            delta, anchor or keep item): marked `[unverified]` where it stands.
    """

    checked: int
    present: int
    appended: int
    parked: int
    invented: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checked = self.checked

        present = self.present

        appended = self.appended

        parked = self.parked

        invented = self.invented

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checked": checked,
                "present": present,
                "appended": appended,
                "parked": parked,
                "invented": invented,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        checked = d.pop("checked")

        present = d.pop("present")

        appended = d.pop("appended")

        parked = d.pop("parked")

        invented = d.pop("invented")

        kind_counts = cls(
            checked=checked,
            present=present,
            appended=appended,
            parked=parked,
            invented=invented,
        )

        kind_counts.additional_properties = d
        return kind_counts

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
