from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="KeepCheckRequest")


@_attrs_define
class KeepCheckRequest:
    """
    Attributes:
        text (str): The summary to check (the one the harness wrote), at most 262,144 characters.
        max_tokens (int | None | Unset): Room for what it left out, in tokens (1–100,000); absent: the
            conversation's summary budget. Under the room this conversation's
            headings and parked line take (a few dozen tokens, more as the keep
            set grows), a 409 names it.
    """

    text: str
    max_tokens: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        max_tokens: int | None | Unset
        if isinstance(self.max_tokens, Unset):
            max_tokens = UNSET
        else:
            max_tokens = self.max_tokens

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "text": text,
            }
        )
        if max_tokens is not UNSET:
            field_dict["max_tokens"] = max_tokens

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        text = d.pop("text")

        def _parse_max_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tokens = _parse_max_tokens(d.pop("max_tokens", UNSET))

        keep_check_request = cls(
            text=text,
            max_tokens=max_tokens,
        )

        return keep_check_request
