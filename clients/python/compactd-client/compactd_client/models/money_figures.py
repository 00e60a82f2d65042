from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MoneyFigures")


@_attrs_define
class MoneyFigures:
    """What compactions cost and what they saved, in US dollars (SPEC §6): the
    net says whether they paid for themselves. Null where nothing was priced
    (`COMPACTD_PRICES`).

        Attributes:
            saved_calls (int): Calls reported after a compaction, up to its next boundary.
            saved_tokens (int): The tokens those calls did not resend.
            unpriced_calls (int): Calls whose model had no price (in `saved_tokens`, not in `saved_usd`).
            unpriced_summaries (int): Summaries whose model had no price (not in `cost_usd`).
            net_usd (float | None | Unset): Savings less cost.
            cost_usd (float | None | Unset): The summaries' upstream tokens at the summary model's price.
            saved_usd (float | None | Unset): The tokens later calls did not resend, at their models' prices, less
                what rewriting the prompt cache after each compaction cost.
            cache_rewrite_usd (float | None | Unset): Of `saved_usd` (already taken from it): the prompt cache's rewrites.
    """

    saved_calls: int
    saved_tokens: int
    unpriced_calls: int
    unpriced_summaries: int
    net_usd: float | None | Unset = UNSET
    cost_usd: float | None | Unset = UNSET
    saved_usd: float | None | Unset = UNSET
    cache_rewrite_usd: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        saved_calls = self.saved_calls

        saved_tokens = self.saved_tokens

        unpriced_calls = self.unpriced_calls

        unpriced_summaries = self.unpriced_summaries

        net_usd: float | None | Unset
        if isinstance(self.net_usd, Unset):
            net_usd = UNSET
        else:
            net_usd = self.net_usd

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

        cache_rewrite_usd: float | None | Unset
        if isinstance(self.cache_rewrite_usd, Unset):
            cache_rewrite_usd = UNSET
        else:
            cache_rewrite_usd = self.cache_rewrite_usd

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "saved_calls": saved_calls,
                "saved_tokens": saved_tokens,
                "unpriced_calls": unpriced_calls,
                "unpriced_summaries": unpriced_summaries,
            }
        )
        if net_usd is not UNSET:
            field_dict["net_usd"] = net_usd
        if cost_usd is not UNSET:
            field_dict["cost_usd"] = cost_usd
        if saved_usd is not UNSET:
            field_dict["saved_usd"] = saved_usd
        if cache_rewrite_usd is not UNSET:
            field_dict["cache_rewrite_usd"] = cache_rewrite_usd

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        saved_calls = d.pop("saved_calls")

        saved_tokens = d.pop("saved_tokens")

        unpriced_calls = d.pop("unpriced_calls")

        unpriced_summaries = d.pop("unpriced_summaries")

        def _parse_net_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        net_usd = _parse_net_usd(d.pop("net_usd", UNSET))

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

        def _parse_cache_rewrite_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        cache_rewrite_usd = _parse_cache_rewrite_usd(d.pop("cache_rewrite_usd", UNSET))

        money_figures = cls(
            saved_calls=saved_calls,
            saved_tokens=saved_tokens,
            unpriced_calls=unpriced_calls,
            unpriced_summaries=unpriced_summaries,
            net_usd=net_usd,
            cost_usd=cost_usd,
            saved_usd=saved_usd,
            cache_rewrite_usd=cache_rewrite_usd,
        )

        money_figures.additional_properties = d
        return money_figures

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
