from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="QuotedRequest")


@_attrs_define
class QuotedRequest:
    """
    Attributes:
        date (datetime.date): `YYYY-MM-DD`. Example: 2026-10-18.
        text (str):
    """

    date: datetime.date
    text: str

    def to_dict(self) -> dict[str, Any]:
        date = self.date.isoformat()

        text = self.text

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "date": date,
                "text": text,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        date = datetime.date.fromisoformat(d.pop("date"))

        text = d.pop("text")

        quoted_request = cls(
            date=date,
            text=text,
        )

        return quoted_request
