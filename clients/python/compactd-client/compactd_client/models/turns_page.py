from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.turn_view import TurnView


T = TypeVar("T", bound="TurnsPage")


@_attrs_define
class TurnsPage:
    """
    Attributes:
        conversation_id (str):
        turns (list[TurnView]): Newest first when reading back; best first when searching. Past
            its first turn, a rolled-over conversation's predecessors follow,
            newest first, from the turn each handoff named.
        next_from (int | None | Unset): Pass as `from`, with `next_conversation_id` as the conversation, to
            read further back; null when there is no more.
        next_conversation_id (None | str | Unset): The conversation the next page reads (this one or a predecessor).
    """

    conversation_id: str
    turns: list[TurnView]
    next_from: int | None | Unset = UNSET
    next_conversation_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        turns = []
        for turns_item_data in self.turns:
            turns_item = turns_item_data.to_dict()
            turns.append(turns_item)

        next_from: int | None | Unset
        if isinstance(self.next_from, Unset):
            next_from = UNSET
        else:
            next_from = self.next_from

        next_conversation_id: None | str | Unset
        if isinstance(self.next_conversation_id, Unset):
            next_conversation_id = UNSET
        else:
            next_conversation_id = self.next_conversation_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversation_id": conversation_id,
                "turns": turns,
            }
        )
        if next_from is not UNSET:
            field_dict["next_from"] = next_from
        if next_conversation_id is not UNSET:
            field_dict["next_conversation_id"] = next_conversation_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.turn_view import TurnView  # noqa: PLC0415

        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        turns = []
        _turns = d.pop("turns")
        for turns_item_data in _turns:
            turns_item = TurnView.from_dict(turns_item_data)

            turns.append(turns_item)

        def _parse_next_from(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        next_from = _parse_next_from(d.pop("next_from", UNSET))

        def _parse_next_conversation_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_conversation_id = _parse_next_conversation_id(d.pop("next_conversation_id", UNSET))

        turns_page = cls(
            conversation_id=conversation_id,
            turns=turns,
            next_from=next_from,
            next_conversation_id=next_conversation_id,
        )

        turns_page.additional_properties = d
        return turns_page

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
