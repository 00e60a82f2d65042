from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="StandbyHealth")


@_attrs_define
class StandbyHealth:
    """The standby as last measured.

    Attributes:
        state (str): `following` (within the lag allowed: the fleet's reads go to it),
            `lagging`, `lost` (it does not answer, or is no standby), or
            `starting` (not measured yet). Example: following.
        reads_on (str): Where the fleet's reads go now: `standby` or `primary`. Example: standby.
        lag_ms (int | None | Unset): How long ago the primary had written what the standby still lacks
            (0: it has everything), at the last measure. Example: 12.
        trouble (None | str | Unset): Why it is lost.
    """

    state: str
    reads_on: str
    lag_ms: int | None | Unset = UNSET
    trouble: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        state = self.state

        reads_on = self.reads_on

        lag_ms: int | None | Unset
        if isinstance(self.lag_ms, Unset):
            lag_ms = UNSET
        else:
            lag_ms = self.lag_ms

        trouble: None | str | Unset
        if isinstance(self.trouble, Unset):
            trouble = UNSET
        else:
            trouble = self.trouble

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "state": state,
                "reads_on": reads_on,
            }
        )
        if lag_ms is not UNSET:
            field_dict["lag_ms"] = lag_ms
        if trouble is not UNSET:
            field_dict["trouble"] = trouble

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        state = d.pop("state")

        reads_on = d.pop("reads_on")

        def _parse_lag_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        lag_ms = _parse_lag_ms(d.pop("lag_ms", UNSET))

        def _parse_trouble(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        trouble = _parse_trouble(d.pop("trouble", UNSET))

        standby_health = cls(
            state=state,
            reads_on=reads_on,
            lag_ms=lag_ms,
            trouble=trouble,
        )

        standby_health.additional_properties = d
        return standby_health

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
