from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.transcript_tool_call_arguments_type_1 import TranscriptToolCallArgumentsType1


T = TypeVar("T", bound="TranscriptToolCall")


@_attrs_define
class TranscriptToolCall:
    """
    Attributes:
        id (str):
        name (str):
        arguments (None | str | TranscriptToolCallArgumentsType1 | Unset):
    """

    id: str
    name: str
    arguments: None | str | TranscriptToolCallArgumentsType1 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.transcript_tool_call_arguments_type_1 import TranscriptToolCallArgumentsType1  # noqa: PLC0415

        id = self.id

        name = self.name

        arguments: dict[str, Any] | None | str | Unset
        if isinstance(self.arguments, Unset):
            arguments = UNSET
        elif isinstance(self.arguments, TranscriptToolCallArgumentsType1):
            arguments = self.arguments.to_dict()
        else:
            arguments = self.arguments

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "name": name,
            }
        )
        if arguments is not UNSET:
            field_dict["arguments"] = arguments

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.transcript_tool_call_arguments_type_1 import TranscriptToolCallArgumentsType1  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        def _parse_arguments(data: object) -> None | str | TranscriptToolCallArgumentsType1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                arguments_type_1 = TranscriptToolCallArgumentsType1.from_dict(data)

                return arguments_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | str | TranscriptToolCallArgumentsType1 | Unset, data)

        arguments = _parse_arguments(d.pop("arguments", UNSET))

        transcript_tool_call = cls(
            id=id,
            name=name,
            arguments=arguments,
        )

        return transcript_tool_call
