from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DeletedCounts")


@_attrs_define
class DeletedCounts:
    """What a deletion took away.

    Attributes:
        conversations (int):
        turns (int):
        events (int): Its log's events (those /stats counts stay, content-free and
            attached to no conversation).
        keep_items (int):
        preparations (int):
        idempotency_keys (int): Answers kept for Idempotency-Keys of requests about it.
        ledger_rows_emptied (int): Ledger rows kept without their summary, error or conversation id, so
            the fleet's figures stay right.
    """

    conversations: int
    turns: int
    events: int
    keep_items: int
    preparations: int
    idempotency_keys: int
    ledger_rows_emptied: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversations = self.conversations

        turns = self.turns

        events = self.events

        keep_items = self.keep_items

        preparations = self.preparations

        idempotency_keys = self.idempotency_keys

        ledger_rows_emptied = self.ledger_rows_emptied

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversations": conversations,
                "turns": turns,
                "events": events,
                "keep_items": keep_items,
                "preparations": preparations,
                "idempotency_keys": idempotency_keys,
                "ledger_rows_emptied": ledger_rows_emptied,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        conversations = d.pop("conversations")

        turns = d.pop("turns")

        events = d.pop("events")

        keep_items = d.pop("keep_items")

        preparations = d.pop("preparations")

        idempotency_keys = d.pop("idempotency_keys")

        ledger_rows_emptied = d.pop("ledger_rows_emptied")

        deleted_counts = cls(
            conversations=conversations,
            turns=turns,
            events=events,
            keep_items=keep_items,
            preparations=preparations,
            idempotency_keys=idempotency_keys,
            ledger_rows_emptied=ledger_rows_emptied,
        )

        deleted_counts.additional_properties = d
        return deleted_counts

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
