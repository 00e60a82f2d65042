from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_message import ChatMessage
    from ..models.critical_turn import CriticalTurn
    from ..models.turn_view import TurnView


T = TypeVar("T", bound="Context")


@_attrs_define
class Context:
    """
    Attributes:
        conversation_id (str):
        critical (list[CriticalTurn]): Turns an audit scored 5, oldest first.
        recent (list[TurnView]): The newest live turns, oldest first (evicted turns are left out; they
            stay readable via /turns). Each text is its first 16,384 characters
            (`clipped` says when it was cut; `/turns/{turn}` reads it whole), and
            the turns hold at most 1 MiB of text: older ones give way first.
        messages (list[ChatMessage]): The same, ready to send: [critical, memory, recent turns].
        memory (None | str | Unset): The rolling memory, built from turns scored 3–4.
    """

    conversation_id: str
    critical: list[CriticalTurn]
    recent: list[TurnView]
    messages: list[ChatMessage]
    memory: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        critical = []
        for critical_item_data in self.critical:
            critical_item = critical_item_data.to_dict()
            critical.append(critical_item)

        recent = []
        for recent_item_data in self.recent:
            recent_item = recent_item_data.to_dict()
            recent.append(recent_item)

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        memory: None | str | Unset
        if isinstance(self.memory, Unset):
            memory = UNSET
        else:
            memory = self.memory

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversation_id": conversation_id,
                "critical": critical,
                "recent": recent,
                "messages": messages,
            }
        )
        if memory is not UNSET:
            field_dict["memory"] = memory

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_message import ChatMessage  # noqa: PLC0415
        from ..models.critical_turn import CriticalTurn  # noqa: PLC0415
        from ..models.turn_view import TurnView  # noqa: PLC0415

        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        critical = []
        _critical = d.pop("critical")
        for critical_item_data in _critical:
            critical_item = CriticalTurn.from_dict(critical_item_data)

            critical.append(critical_item)

        recent = []
        _recent = d.pop("recent")
        for recent_item_data in _recent:
            recent_item = TurnView.from_dict(recent_item_data)

            recent.append(recent_item)

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = ChatMessage.from_dict(messages_item_data)

            messages.append(messages_item)

        def _parse_memory(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        memory = _parse_memory(d.pop("memory", UNSET))

        context = cls(
            conversation_id=conversation_id,
            critical=critical,
            recent=recent,
            messages=messages,
            memory=memory,
        )

        context.additional_properties = d
        return context

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
