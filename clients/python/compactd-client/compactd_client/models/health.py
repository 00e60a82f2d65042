from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.standby_health import StandbyHealth


T = TypeVar("T", bound="Health")


@_attrs_define
class Health:
    """
    Attributes:
        status (str):  Example: ok.
        standby (None | StandbyHealth | Unset):
    """

    status: str
    standby: None | StandbyHealth | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.standby_health import StandbyHealth  # noqa: PLC0415

        status = self.status

        standby: dict[str, Any] | None | Unset
        if isinstance(self.standby, Unset):
            standby = UNSET
        elif isinstance(self.standby, StandbyHealth):
            standby = self.standby.to_dict()
        else:
            standby = self.standby

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
            }
        )
        if standby is not UNSET:
            field_dict["standby"] = standby

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.standby_health import StandbyHealth  # noqa: PLC0415

        d = dict(src_dict)
        status = d.pop("status")

        def _parse_standby(data: object) -> None | StandbyHealth | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                standby_type_1 = StandbyHealth.from_dict(data)

                return standby_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StandbyHealth | Unset, data)

        standby = _parse_standby(d.pop("standby", UNSET))

        health = cls(
            status=status,
            standby=standby,
        )

        health.additional_properties = d
        return health

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
