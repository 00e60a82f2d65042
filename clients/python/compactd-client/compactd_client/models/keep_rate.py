from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.keep_kind import KeepKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="KeepRate")


@_attrs_define
class KeepRate:
    """How well summaries kept one kind of item (SPEC §4).

    Attributes:
        kind (KeepKind): What a must-keep item is: the latest request, a prohibition, a path, URL, id, command or
            quantity, or a file the agent changed.
        checked (int): Items the summaries were to carry…
        present (int): …already in the writer's text…
        appended (int): …appended by the keep guard…
        parked (int): …or parked for want of room.
        invented (int): Identifiers of this kind a model wrote that appear in nothing it was
            given: marked `[unverified]` in its summary.
        kept_rate (float | None | Unset): `(present + appended) / checked`: the share kept word for word.
    """

    kind: KeepKind
    checked: int
    present: int
    appended: int
    parked: int
    invented: int
    kept_rate: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        checked = self.checked

        present = self.present

        appended = self.appended

        parked = self.parked

        invented = self.invented

        kept_rate: float | None | Unset
        if isinstance(self.kept_rate, Unset):
            kept_rate = UNSET
        else:
            kept_rate = self.kept_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "checked": checked,
                "present": present,
                "appended": appended,
                "parked": parked,
                "invented": invented,
            }
        )
        if kept_rate is not UNSET:
            field_dict["kept_rate"] = kept_rate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = KeepKind(d.pop("kind"))

        checked = d.pop("checked")

        present = d.pop("present")

        appended = d.pop("appended")

        parked = d.pop("parked")

        invented = d.pop("invented")

        def _parse_kept_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        kept_rate = _parse_kept_rate(d.pop("kept_rate", UNSET))

        keep_rate = cls(
            kind=kind,
            checked=checked,
            present=present,
            appended=appended,
            parked=parked,
            invented=invented,
            kept_rate=kept_rate,
        )

        keep_rate.additional_properties = d
        return keep_rate

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
