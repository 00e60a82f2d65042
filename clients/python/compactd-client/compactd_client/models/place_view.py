from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PlaceView")


@_attrs_define
class PlaceView:
    """Where an item was seen: a stored turn, or a message of a /summarize delta.

    Attributes:
        conversation_id (str):
        at (datetime.datetime):
        turn_id (int | None | Unset): The stored turn (its bookmark for `search_history`).
        compaction_seq (int | None | Unset): The compaction whose `messages` held it…
        message (int | None | Unset): …and the message's index there.
    """

    conversation_id: str
    at: datetime.datetime
    turn_id: int | None | Unset = UNSET
    compaction_seq: int | None | Unset = UNSET
    message: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        at = self.at.isoformat()

        turn_id: int | None | Unset
        if isinstance(self.turn_id, Unset):
            turn_id = UNSET
        else:
            turn_id = self.turn_id

        compaction_seq: int | None | Unset
        if isinstance(self.compaction_seq, Unset):
            compaction_seq = UNSET
        else:
            compaction_seq = self.compaction_seq

        message: int | None | Unset
        if isinstance(self.message, Unset):
            message = UNSET
        else:
            message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversation_id": conversation_id,
                "at": at,
            }
        )
        if turn_id is not UNSET:
            field_dict["turn_id"] = turn_id
        if compaction_seq is not UNSET:
            field_dict["compaction_seq"] = compaction_seq
        if message is not UNSET:
            field_dict["message"] = message

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        at = datetime.datetime.fromisoformat(d.pop("at"))

        def _parse_turn_id(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        turn_id = _parse_turn_id(d.pop("turn_id", UNSET))

        def _parse_compaction_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        compaction_seq = _parse_compaction_seq(d.pop("compaction_seq", UNSET))

        def _parse_message(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        message = _parse_message(d.pop("message", UNSET))

        place_view = cls(
            conversation_id=conversation_id,
            at=at,
            turn_id=turn_id,
            compaction_seq=compaction_seq,
            message=message,
        )

        place_view.additional_properties = d
        return place_view

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
