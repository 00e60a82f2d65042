from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.moment import Moment

if TYPE_CHECKING:
    from ..models.due_conversation import DueConversation


T = TypeVar("T", bound="DueResponse")


@_attrs_define
class DueResponse:
    """
    Attributes:
        moment (Moment): When the caller asks: at a turn's end, while idle, or before the next user message.
        at (datetime.datetime):
        conversations (list[DueConversation]): Oldest last turn first.
    """

    moment: Moment
    at: datetime.datetime
    conversations: list[DueConversation]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        moment = self.moment.value

        at = self.at.isoformat()

        conversations = []
        for conversations_item_data in self.conversations:
            conversations_item = conversations_item_data.to_dict()
            conversations.append(conversations_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "moment": moment,
                "at": at,
                "conversations": conversations,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.due_conversation import DueConversation  # noqa: PLC0415

        d = dict(src_dict)
        moment = Moment(d.pop("moment"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

        conversations = []
        _conversations = d.pop("conversations")
        for conversations_item_data in _conversations:
            conversations_item = DueConversation.from_dict(conversations_item_data)

            conversations.append(conversations_item)

        due_response = cls(
            moment=moment,
            at=at,
            conversations=conversations,
        )

        due_response.additional_properties = d
        return due_response

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
