from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.trigger import Trigger

T = TypeVar("T", bound="Overflow")


@_attrs_define
class Overflow:
    """What an upstream would need to fit the compacted result (seed 002's
    terminal condition): the caller should roll over.

        Attributes:
            tokens_used (int):
            context_window (int):
            overflow (int):
            utilization (float): `tokens_used / context_window`.
            message_count (int):
            trigger (Trigger): Why a compaction or rollover is due. Stable: the ledger stores these. `cache_cold` and
                `long_away` only explain a `next_message` rollover.
    """

    tokens_used: int
    context_window: int
    overflow: int
    utilization: float
    message_count: int
    trigger: Trigger
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tokens_used = self.tokens_used

        context_window = self.context_window

        overflow = self.overflow

        utilization = self.utilization

        message_count = self.message_count

        trigger = self.trigger.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tokens_used": tokens_used,
                "context_window": context_window,
                "overflow": overflow,
                "utilization": utilization,
                "message_count": message_count,
                "trigger": trigger,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tokens_used = d.pop("tokens_used")

        context_window = d.pop("context_window")

        overflow = d.pop("overflow")

        utilization = d.pop("utilization")

        message_count = d.pop("message_count")

        trigger = Trigger(d.pop("trigger"))

        overflow = cls(
            tokens_used=tokens_used,
            context_window=context_window,
            overflow=overflow,
            utilization=utilization,
            message_count=message_count,
            trigger=trigger,
        )

        overflow.additional_properties = d
        return overflow

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
