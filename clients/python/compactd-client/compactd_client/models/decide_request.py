from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.moment import Moment
from ..types import UNSET, Unset

T = TypeVar("T", bound="DecideRequest")


@_attrs_define
class DecideRequest:
    """
    Attributes:
        conversation_id (str):  Example: support-4711.
        moment (Moment | None | Unset):
        at (datetime.datetime | None | Unset): The moment to decide for (RFC 3339); the server's clock when absent.
    """

    conversation_id: str
    moment: Moment | None | Unset = UNSET
    at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        moment: None | str | Unset
        if isinstance(self.moment, Unset):
            moment = UNSET
        elif isinstance(self.moment, Moment):
            moment = self.moment.value
        else:
            moment = self.moment

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
        if moment is not UNSET:
            field_dict["moment"] = moment
        if at is not UNSET:
            field_dict["at"] = at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        def _parse_moment(data: object) -> Moment | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                moment_type_1 = Moment(data)

                return moment_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Moment | None | Unset, data)

        moment = _parse_moment(d.pop("moment", UNSET))

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

        decide_request = cls(
            conversation_id=conversation_id,
            moment=moment,
            at=at,
        )

        return decide_request
