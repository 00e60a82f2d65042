from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SeriesPoint")


@_attrs_define
class SeriesPoint:
    """
    Attributes:
        start (datetime.datetime): The bucket's start.
        trigger (str):
        count (int):
        successes (int):
        failures (int):
        tokens_saved (int):
        cost_usd (float | None | Unset): What the bucket's compactions cost upstream, in US dollars (null
            without `COMPACTD_PRICES`).
        saved_usd (float | None | Unset): What they saved: the tokens later calls did not resend, priced.
        net_usd (float | None | Unset): Saved less cost.
    """

    start: datetime.datetime
    trigger: str
    count: int
    successes: int
    failures: int
    tokens_saved: int
    cost_usd: float | None | Unset = UNSET
    saved_usd: float | None | Unset = UNSET
    net_usd: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        start = self.start.isoformat()

        trigger = self.trigger

        count = self.count

        successes = self.successes

        failures = self.failures

        tokens_saved = self.tokens_saved

        cost_usd: float | None | Unset
        if isinstance(self.cost_usd, Unset):
            cost_usd = UNSET
        else:
            cost_usd = self.cost_usd

        saved_usd: float | None | Unset
        if isinstance(self.saved_usd, Unset):
            saved_usd = UNSET
        else:
            saved_usd = self.saved_usd

        net_usd: float | None | Unset
        if isinstance(self.net_usd, Unset):
            net_usd = UNSET
        else:
            net_usd = self.net_usd

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "start": start,
                "trigger": trigger,
                "count": count,
                "successes": successes,
                "failures": failures,
                "tokens_saved": tokens_saved,
            }
        )
        if cost_usd is not UNSET:
            field_dict["cost_usd"] = cost_usd
        if saved_usd is not UNSET:
            field_dict["saved_usd"] = saved_usd
        if net_usd is not UNSET:
            field_dict["net_usd"] = net_usd

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        start = datetime.datetime.fromisoformat(d.pop("start"))

        trigger = d.pop("trigger")

        count = d.pop("count")

        successes = d.pop("successes")

        failures = d.pop("failures")

        tokens_saved = d.pop("tokens_saved")

        def _parse_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        cost_usd = _parse_cost_usd(d.pop("cost_usd", UNSET))

        def _parse_saved_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        saved_usd = _parse_saved_usd(d.pop("saved_usd", UNSET))

        def _parse_net_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        net_usd = _parse_net_usd(d.pop("net_usd", UNSET))

        series_point = cls(
            start=start,
            trigger=trigger,
            count=count,
            successes=successes,
            failures=failures,
            tokens_saved=tokens_saved,
            cost_usd=cost_usd,
            saved_usd=saved_usd,
            net_usd=net_usd,
        )

        series_point.additional_properties = d
        return series_point

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
