from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="HandoffResponse")


@_attrs_define
class HandoffResponse:
    """
    Attributes:
        declined (bool):
        text (None | str | Unset): The text that starts the new conversation (null when declined).
        successor_id (None | str | Unset): The new conversation (null when declined).
    """

    declined: bool
    text: None | str | Unset = UNSET
    successor_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        declined = self.declined

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        successor_id: None | str | Unset
        if isinstance(self.successor_id, Unset):
            successor_id = UNSET
        else:
            successor_id = self.successor_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "declined": declined,
            }
        )
        if text is not UNSET:
            field_dict["text"] = text
        if successor_id is not UNSET:
            field_dict["successor_id"] = successor_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        declined = d.pop("declined")

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        def _parse_successor_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        successor_id = _parse_successor_id(d.pop("successor_id", UNSET))

        handoff_response = cls(
            declined=declined,
            text=text,
            successor_id=successor_id,
        )

        handoff_response.additional_properties = d
        return handoff_response

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
