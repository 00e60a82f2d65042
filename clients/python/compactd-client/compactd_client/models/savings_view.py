from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SavingsView")


@_attrs_define
class SavingsView:
    """What a compaction saved (SPEC §6): each call the agent reported after it
    did not resend `tokens_saved` tokens, until its next boundary.

        Attributes:
            calls (int): Calls reported after it (to /usage), up to its next boundary.
            tokens (int): The tokens those calls did not resend.
            unpriced_calls (int): Calls whose model had no price: in `tokens`, not in `usd`.
            accruing (bool): It is its conversation's latest boundary: its savings still grow.
            usd (float | None | Unset): Those tokens at the price of the model each call named: cached
                input's while the call's cache was warm (the spared tokens were the
                old prefix, which the cache held), fresh input's where it had lapsed;
                less `cache_rewrite_usd`. Null when no call's model had a price.
            cache_rewrite_usd (float | None | Unset): Of `usd` (already taken from it): what the first call after it paid
                to write the new, shorter prefix to the prompt cache, where it would
                have read the old one from there.
    """

    calls: int
    tokens: int
    unpriced_calls: int
    accruing: bool
    usd: float | None | Unset = UNSET
    cache_rewrite_usd: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        calls = self.calls

        tokens = self.tokens

        unpriced_calls = self.unpriced_calls

        accruing = self.accruing

        usd: float | None | Unset
        if isinstance(self.usd, Unset):
            usd = UNSET
        else:
            usd = self.usd

        cache_rewrite_usd: float | None | Unset
        if isinstance(self.cache_rewrite_usd, Unset):
            cache_rewrite_usd = UNSET
        else:
            cache_rewrite_usd = self.cache_rewrite_usd

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "calls": calls,
                "tokens": tokens,
                "unpriced_calls": unpriced_calls,
                "accruing": accruing,
            }
        )
        if usd is not UNSET:
            field_dict["usd"] = usd
        if cache_rewrite_usd is not UNSET:
            field_dict["cache_rewrite_usd"] = cache_rewrite_usd

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        calls = d.pop("calls")

        tokens = d.pop("tokens")

        unpriced_calls = d.pop("unpriced_calls")

        accruing = d.pop("accruing")

        def _parse_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        usd = _parse_usd(d.pop("usd", UNSET))

        def _parse_cache_rewrite_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        cache_rewrite_usd = _parse_cache_rewrite_usd(d.pop("cache_rewrite_usd", UNSET))

        savings_view = cls(
            calls=calls,
            tokens=tokens,
            unpriced_calls=unpriced_calls,
            accruing=accruing,
            usd=usd,
            cache_rewrite_usd=cache_rewrite_usd,
        )

        savings_view.additional_properties = d
        return savings_view

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
