from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TurnEndedRequest")


@_attrs_define
class TurnEndedRequest:
    """
    Attributes:
        conversation_id (str):  Example: support-4711.
        user_messages (int | None | Unset): User messages in this turn (default 1, at most 1,000,000). Example: 1.
        run_completed (bool | None | Unset): The agent's run finished cleanly (default true).
        user (None | str | Unset): What the user said; stored as the conversation's next turn.
        assistant (None | str | Unset): What the agent answered; stored with it.
        at (datetime.datetime | None | Unset): When the turn ended (RFC 3339); the server's clock when absent.
    """

    conversation_id: str
    user_messages: int | None | Unset = UNSET
    run_completed: bool | None | Unset = UNSET
    user: None | str | Unset = UNSET
    assistant: None | str | Unset = UNSET
    at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        user_messages: int | None | Unset
        if isinstance(self.user_messages, Unset):
            user_messages = UNSET
        else:
            user_messages = self.user_messages

        run_completed: bool | None | Unset
        if isinstance(self.run_completed, Unset):
            run_completed = UNSET
        else:
            run_completed = self.run_completed

        user: None | str | Unset
        if isinstance(self.user, Unset):
            user = UNSET
        else:
            user = self.user

        assistant: None | str | Unset
        if isinstance(self.assistant, Unset):
            assistant = UNSET
        else:
            assistant = self.assistant

        at: None | str | Unset
        if isinstance(self.at, Unset):
            at = UNSET
        elif isinstance(self.at, datetime.datetime):
            at = self.at.isoformat()
        else:
            at = self.at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "conversation_id": conversation_id,
            }
        )
        if user_messages is not UNSET:
            field_dict["user_messages"] = user_messages
        if run_completed is not UNSET:
            field_dict["run_completed"] = run_completed
        if user is not UNSET:
            field_dict["user"] = user
        if assistant is not UNSET:
            field_dict["assistant"] = assistant
        if at is not UNSET:
            field_dict["at"] = at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        def _parse_user_messages(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        user_messages = _parse_user_messages(d.pop("user_messages", UNSET))

        def _parse_run_completed(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        run_completed = _parse_run_completed(d.pop("run_completed", UNSET))

        def _parse_user(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user = _parse_user(d.pop("user", UNSET))

        def _parse_assistant(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        assistant = _parse_assistant(d.pop("assistant", UNSET))

        def _parse_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                at_type_0 = datetime.datetime.fromisoformat(data)

                return at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        at = _parse_at(d.pop("at", UNSET))

        turn_ended_request = cls(
            conversation_id=conversation_id,
            user_messages=user_messages,
            run_completed=run_completed,
            user=user,
            assistant=assistant,
            at=at,
        )

        return turn_ended_request
