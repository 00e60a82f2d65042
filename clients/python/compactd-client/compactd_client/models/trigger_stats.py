from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.money_figures import MoneyFigures


T = TypeVar("T", bound="TriggerStats")


@_attrs_define
class TriggerStats:
    """
    Attributes:
        trigger (str):
        count (int): Compaction attempts, successful or not.
        successes (int):
        failures (int):
        tokens_saved (int):
        money (MoneyFigures): What compactions cost and what they saved, in US dollars (SPEC §6): the
            net says whether they paid for themselves. Null where nothing was priced
            (`COMPACTD_PRICES`).
        mean_percent_saved (float | None | Unset): Mean percent saved over the successful ones.
        p50_duration_ms (float | None | Unset):
        p95_duration_ms (float | None | Unset):
    """

    trigger: str
    count: int
    successes: int
    failures: int
    tokens_saved: int
    money: MoneyFigures
    mean_percent_saved: float | None | Unset = UNSET
    p50_duration_ms: float | None | Unset = UNSET
    p95_duration_ms: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        trigger = self.trigger

        count = self.count

        successes = self.successes

        failures = self.failures

        tokens_saved = self.tokens_saved

        money = self.money.to_dict()

        mean_percent_saved: float | None | Unset
        if isinstance(self.mean_percent_saved, Unset):
            mean_percent_saved = UNSET
        else:
            mean_percent_saved = self.mean_percent_saved

        p50_duration_ms: float | None | Unset
        if isinstance(self.p50_duration_ms, Unset):
            p50_duration_ms = UNSET
        else:
            p50_duration_ms = self.p50_duration_ms

        p95_duration_ms: float | None | Unset
        if isinstance(self.p95_duration_ms, Unset):
            p95_duration_ms = UNSET
        else:
            p95_duration_ms = self.p95_duration_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "trigger": trigger,
                "count": count,
                "successes": successes,
                "failures": failures,
                "tokens_saved": tokens_saved,
                "money": money,
            }
        )
        if mean_percent_saved is not UNSET:
            field_dict["mean_percent_saved"] = mean_percent_saved
        if p50_duration_ms is not UNSET:
            field_dict["p50_duration_ms"] = p50_duration_ms
        if p95_duration_ms is not UNSET:
            field_dict["p95_duration_ms"] = p95_duration_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.money_figures import MoneyFigures  # noqa: PLC0415

        d = dict(src_dict)
        trigger = d.pop("trigger")

        count = d.pop("count")

        successes = d.pop("successes")

        failures = d.pop("failures")

        tokens_saved = d.pop("tokens_saved")

        money = MoneyFigures.from_dict(d.pop("money"))

        def _parse_mean_percent_saved(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        mean_percent_saved = _parse_mean_percent_saved(d.pop("mean_percent_saved", UNSET))

        def _parse_p50_duration_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        p50_duration_ms = _parse_p50_duration_ms(d.pop("p50_duration_ms", UNSET))

        def _parse_p95_duration_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        p95_duration_ms = _parse_p95_duration_ms(d.pop("p95_duration_ms", UNSET))

        trigger_stats = cls(
            trigger=trigger,
            count=count,
            successes=successes,
            failures=failures,
            tokens_saved=tokens_saved,
            money=money,
            mean_percent_saved=mean_percent_saved,
            p50_duration_ms=p50_duration_ms,
            p95_duration_ms=p95_duration_ms,
        )

        trigger_stats.additional_properties = d
        return trigger_stats

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
