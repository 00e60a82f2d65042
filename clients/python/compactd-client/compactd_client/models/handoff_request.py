from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.quoted_request import QuotedRequest


T = TypeVar("T", bound="HandoffRequest")


@_attrs_define
class HandoffRequest:
    """
    Attributes:
        conversation_id (str):  Example: support-4711.
        requests (list[QuotedRequest] | None | Unset): The user's latest messages, oldest first; absent: the last 3
            stored.
        reply (None | str | Unset): The agent's last reply; absent: the last one stored.
        plan (None | str | Unset): The plan the agent was working through.
        bookmark (None | str | Unset): Where `search_history` reads back from; absent: the last stored turn's id.
        successor_id (None | str | Unset): The new conversation's id; absent: a new UUID, or the successor a
            handoff already made (a second call answers the first's text).
        declined (bool | None | Unset): The user chose to carry on: record it and render nothing.
        at (datetime.datetime | None | Unset):
    """

    conversation_id: str
    requests: list[QuotedRequest] | None | Unset = UNSET
    reply: None | str | Unset = UNSET
    plan: None | str | Unset = UNSET
    bookmark: None | str | Unset = UNSET
    successor_id: None | str | Unset = UNSET
    declined: bool | None | Unset = UNSET
    at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        requests: list[dict[str, Any]] | None | Unset
        if isinstance(self.requests, Unset):
            requests = UNSET
        elif isinstance(self.requests, list):
            requests = []
            for requests_type_0_item_data in self.requests:
                requests_type_0_item = requests_type_0_item_data.to_dict()
                requests.append(requests_type_0_item)

        else:
            requests = self.requests

        reply: None | str | Unset
        if isinstance(self.reply, Unset):
            reply = UNSET
        else:
            reply = self.reply

        plan: None | str | Unset
        if isinstance(self.plan, Unset):
            plan = UNSET
        else:
            plan = self.plan

        bookmark: None | str | Unset
        if isinstance(self.bookmark, Unset):
            bookmark = UNSET
        else:
            bookmark = self.bookmark

        successor_id: None | str | Unset
        if isinstance(self.successor_id, Unset):
            successor_id = UNSET
        else:
            successor_id = self.successor_id

        declined: bool | None | Unset
        if isinstance(self.declined, Unset):
            declined = UNSET
        else:
            declined = self.declined

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
        if requests is not UNSET:
            field_dict["requests"] = requests
        if reply is not UNSET:
            field_dict["reply"] = reply
        if plan is not UNSET:
            field_dict["plan"] = plan
        if bookmark is not UNSET:
            field_dict["bookmark"] = bookmark
        if successor_id is not UNSET:
            field_dict["successor_id"] = successor_id
        if declined is not UNSET:
            field_dict["declined"] = declined
        if at is not UNSET:
            field_dict["at"] = at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.quoted_request import QuotedRequest  # noqa: PLC0415

        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        def _parse_requests(data: object) -> list[QuotedRequest] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                requests_type_0 = []
                _requests_type_0 = data
                for requests_type_0_item_data in _requests_type_0:
                    requests_type_0_item = QuotedRequest.from_dict(requests_type_0_item_data)

                    requests_type_0.append(requests_type_0_item)

                return requests_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[QuotedRequest] | None | Unset, data)

        requests = _parse_requests(d.pop("requests", UNSET))

        def _parse_reply(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reply = _parse_reply(d.pop("reply", UNSET))

        def _parse_plan(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        plan = _parse_plan(d.pop("plan", UNSET))

        def _parse_bookmark(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        bookmark = _parse_bookmark(d.pop("bookmark", UNSET))

        def _parse_successor_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        successor_id = _parse_successor_id(d.pop("successor_id", UNSET))

        def _parse_declined(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        declined = _parse_declined(d.pop("declined", UNSET))

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

        handoff_request = cls(
            conversation_id=conversation_id,
            requests=requests,
            reply=reply,
            plan=plan,
            bookmark=bookmark,
            successor_id=successor_id,
            declined=declined,
            at=at,
        )

        return handoff_request
