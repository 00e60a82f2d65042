from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conversation_state import ConversationState


T = TypeVar("T", bound="TurnEndedResponse")


@_attrs_define
class TurnEndedResponse:
    """
    Attributes:
        state (ConversationState): A conversation's state (SPEC §1), with its summary, pending decision and lineage.
        turn_id (int | None | Unset): The stored turn's id (its bookmark), when `user` or `assistant` was sent.
    """

    state: ConversationState
    turn_id: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        state = self.state.to_dict()

        turn_id: int | None | Unset
        if isinstance(self.turn_id, Unset):
            turn_id = UNSET
        else:
            turn_id = self.turn_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "state": state,
            }
        )
        if turn_id is not UNSET:
            field_dict["turn_id"] = turn_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.conversation_state import ConversationState  # noqa: PLC0415

        d = dict(src_dict)
        state = ConversationState.from_dict(d.pop("state"))

        def _parse_turn_id(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        turn_id = _parse_turn_id(d.pop("turn_id", UNSET))

        turn_ended_response = cls(
            state=state,
            turn_id=turn_id,
        )

        turn_ended_response.additional_properties = d
        return turn_ended_response

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
