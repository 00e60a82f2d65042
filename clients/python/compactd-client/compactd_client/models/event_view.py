from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="EventView")


@_attrs_define
class EventView:
    """One entry of a conversation's append-only log.

    Attributes:
        seq (int): 1, 2, 3… within the conversation, without gaps.
        at (datetime.datetime): When it happened.
        kind (str): `usage`, `turn_ended`, `decision`, `compaction`, `handoff`, `rollover_declined`, `scored`, `audited`
            or `skipped`.
        payload (Any):
        recorded_at (datetime.datetime): When the service wrote it.
    """

    seq: int
    at: datetime.datetime
    kind: str
    payload: Any
    recorded_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        seq = self.seq

        at = self.at.isoformat()

        kind = self.kind

        payload = self.payload

        recorded_at = self.recorded_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "seq": seq,
                "at": at,
                "kind": kind,
                "payload": payload,
                "recorded_at": recorded_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        seq = d.pop("seq")

        at = datetime.datetime.fromisoformat(d.pop("at"))

        kind = d.pop("kind")

        payload = d.pop("payload")

        recorded_at = datetime.datetime.fromisoformat(d.pop("recorded_at"))

        event_view = cls(
            seq=seq,
            at=at,
            kind=kind,
            payload=payload,
            recorded_at=recorded_at,
        )

        event_view.additional_properties = d
        return event_view

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
