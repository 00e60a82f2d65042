from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CriticalTurn")


@_attrs_define
class CriticalTurn:
    """A turn scored 5, word for word.

    Attributes:
        turn_id (int):
        user (None | str | Unset):
        assistant (None | str | Unset):
    """

    turn_id: int
    user: None | str | Unset = UNSET
    assistant: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        turn_id = self.turn_id

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

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "turn_id": turn_id,
            }
        )
        if user is not UNSET:
            field_dict["user"] = user
        if assistant is not UNSET:
            field_dict["assistant"] = assistant

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        turn_id = d.pop("turn_id")

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

        critical_turn = cls(
            turn_id=turn_id,
            user=user,
            assistant=assistant,
        )

        critical_turn.additional_properties = d
        return critical_turn

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
