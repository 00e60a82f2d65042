from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ListedConversation")


@_attrs_define
class ListedConversation:
    """A conversation as the picker lists it.

    Attributes:
        conversation_id (str):
        created_at (datetime.datetime):
        turn_count (int):
        compactions (int):
        used (int):
        size (int):
        last_turn_at (datetime.datetime | None | Unset):
        predecessor_id (None | str | Unset):
        successor_id (None | str | Unset):
    """

    conversation_id: str
    created_at: datetime.datetime
    turn_count: int
    compactions: int
    used: int
    size: int
    last_turn_at: datetime.datetime | None | Unset = UNSET
    predecessor_id: None | str | Unset = UNSET
    successor_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        created_at = self.created_at.isoformat()

        turn_count = self.turn_count

        compactions = self.compactions

        used = self.used

        size = self.size

        last_turn_at: None | str | Unset
        if isinstance(self.last_turn_at, Unset):
            last_turn_at = UNSET
        elif isinstance(self.last_turn_at, datetime.datetime):
            last_turn_at = self.last_turn_at.isoformat()
        else:
            last_turn_at = self.last_turn_at

        predecessor_id: None | str | Unset
        if isinstance(self.predecessor_id, Unset):
            predecessor_id = UNSET
        else:
            predecessor_id = self.predecessor_id

        successor_id: None | str | Unset
        if isinstance(self.successor_id, Unset):
            successor_id = UNSET
        else:
            successor_id = self.successor_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversation_id": conversation_id,
                "created_at": created_at,
                "turn_count": turn_count,
                "compactions": compactions,
                "used": used,
                "size": size,
            }
        )
        if last_turn_at is not UNSET:
            field_dict["last_turn_at"] = last_turn_at
        if predecessor_id is not UNSET:
            field_dict["predecessor_id"] = predecessor_id
        if successor_id is not UNSET:
            field_dict["successor_id"] = successor_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        turn_count = d.pop("turn_count")

        compactions = d.pop("compactions")

        used = d.pop("used")

        size = d.pop("size")

        def _parse_last_turn_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_turn_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_turn_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_turn_at = _parse_last_turn_at(d.pop("last_turn_at", UNSET))

        def _parse_predecessor_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        predecessor_id = _parse_predecessor_id(d.pop("predecessor_id", UNSET))

        def _parse_successor_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        successor_id = _parse_successor_id(d.pop("successor_id", UNSET))

        listed_conversation = cls(
            conversation_id=conversation_id,
            created_at=created_at,
            turn_count=turn_count,
            compactions=compactions,
            used=used,
            size=size,
            last_turn_at=last_turn_at,
            predecessor_id=predecessor_id,
            successor_id=successor_id,
        )

        listed_conversation.additional_properties = d
        return listed_conversation

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
