from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TurnView")


@_attrs_define
class TurnView:
    """
    Attributes:
        id (int): Its id: the bookmark to read back from.
        conversation_id (str): The conversation it was said in: this one, or a predecessor's.
        at (datetime.datetime):
        user_messages (int):
        clipped (bool):
        critical (bool): An audit scored it 5: it is served word for word by /context.
        evicted (bool): Out of the live context since an audit; still stored and readable.
        user (None | str | Unset): In a page, each text's first 16,384 characters: `clipped` says when
            either was cut, `GET …/turns/{turn}` reads it whole.
        assistant (None | str | Unset):
        user_chars (int | None | Unset): The texts' whole lengths, in characters.
        assistant_chars (int | None | Unset):
        score (int | None | Unset): How much it matters, 1–5 (SPEC §5); null until scored.
        scored_by (None | str | Unset): Who scored it: `llm`, `heuristic` or `audit`.
    """

    id: int
    conversation_id: str
    at: datetime.datetime
    user_messages: int
    clipped: bool
    critical: bool
    evicted: bool
    user: None | str | Unset = UNSET
    assistant: None | str | Unset = UNSET
    user_chars: int | None | Unset = UNSET
    assistant_chars: int | None | Unset = UNSET
    score: int | None | Unset = UNSET
    scored_by: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        conversation_id = self.conversation_id

        at = self.at.isoformat()

        user_messages = self.user_messages

        clipped = self.clipped

        critical = self.critical

        evicted = self.evicted

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

        user_chars: int | None | Unset
        if isinstance(self.user_chars, Unset):
            user_chars = UNSET
        else:
            user_chars = self.user_chars

        assistant_chars: int | None | Unset
        if isinstance(self.assistant_chars, Unset):
            assistant_chars = UNSET
        else:
            assistant_chars = self.assistant_chars

        score: int | None | Unset
        if isinstance(self.score, Unset):
            score = UNSET
        else:
            score = self.score

        scored_by: None | str | Unset
        if isinstance(self.scored_by, Unset):
            scored_by = UNSET
        else:
            scored_by = self.scored_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "conversation_id": conversation_id,
                "at": at,
                "user_messages": user_messages,
                "clipped": clipped,
                "critical": critical,
                "evicted": evicted,
            }
        )
        if user is not UNSET:
            field_dict["user"] = user
        if assistant is not UNSET:
            field_dict["assistant"] = assistant
        if user_chars is not UNSET:
            field_dict["user_chars"] = user_chars
        if assistant_chars is not UNSET:
            field_dict["assistant_chars"] = assistant_chars
        if score is not UNSET:
            field_dict["score"] = score
        if scored_by is not UNSET:
            field_dict["scored_by"] = scored_by

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        conversation_id = d.pop("conversation_id")

        at = datetime.datetime.fromisoformat(d.pop("at"))

        user_messages = d.pop("user_messages")

        clipped = d.pop("clipped")

        critical = d.pop("critical")

        evicted = d.pop("evicted")

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

        def _parse_user_chars(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        user_chars = _parse_user_chars(d.pop("user_chars", UNSET))

        def _parse_assistant_chars(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        assistant_chars = _parse_assistant_chars(d.pop("assistant_chars", UNSET))

        def _parse_score(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        score = _parse_score(d.pop("score", UNSET))

        def _parse_scored_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scored_by = _parse_scored_by(d.pop("scored_by", UNSET))

        turn_view = cls(
            id=id,
            conversation_id=conversation_id,
            at=at,
            user_messages=user_messages,
            clipped=clipped,
            critical=critical,
            evicted=evicted,
            user=user,
            assistant=assistant,
            user_chars=user_chars,
            assistant_chars=assistant_chars,
            score=score,
            scored_by=scored_by,
        )

        turn_view.additional_properties = d
        return turn_view

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
