from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.compaction import Compaction
    from ..models.conversation_state import ConversationState
    from ..models.overflow import Overflow


T = TypeVar("T", bound="SummarizeResponse")


@_attrs_define
class SummarizeResponse:
    """
    Attributes:
        success (bool):
        keep_instructions (str):
        compaction (Compaction): One compaction attempt, successful or not.
        state (ConversationState): A conversation's state (SPEC §1), with its summary, pending decision and lineage.
        summary (None | str | Unset): The new summary; on failure, the prior one, unchanged.
        error (None | str | Unset):
        overflow (None | Overflow | Unset):
    """

    success: bool
    keep_instructions: str
    compaction: Compaction
    state: ConversationState
    summary: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    overflow: None | Overflow | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.overflow import Overflow  # noqa: PLC0415

        success = self.success

        keep_instructions = self.keep_instructions

        compaction = self.compaction.to_dict()

        state = self.state.to_dict()

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        overflow: dict[str, Any] | None | Unset
        if isinstance(self.overflow, Unset):
            overflow = UNSET
        elif isinstance(self.overflow, Overflow):
            overflow = self.overflow.to_dict()
        else:
            overflow = self.overflow

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "success": success,
                "keep_instructions": keep_instructions,
                "compaction": compaction,
                "state": state,
            }
        )
        if summary is not UNSET:
            field_dict["summary"] = summary
        if error is not UNSET:
            field_dict["error"] = error
        if overflow is not UNSET:
            field_dict["overflow"] = overflow

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.compaction import Compaction  # noqa: PLC0415
        from ..models.conversation_state import ConversationState  # noqa: PLC0415
        from ..models.overflow import Overflow  # noqa: PLC0415

        d = dict(src_dict)
        success = d.pop("success")

        keep_instructions = d.pop("keep_instructions")

        compaction = Compaction.from_dict(d.pop("compaction"))

        state = ConversationState.from_dict(d.pop("state"))

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_overflow(data: object) -> None | Overflow | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                overflow_type_1 = Overflow.from_dict(data)

                return overflow_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Overflow | Unset, data)

        overflow = _parse_overflow(d.pop("overflow", UNSET))

        summarize_response = cls(
            success=success,
            keep_instructions=keep_instructions,
            compaction=compaction,
            state=state,
            summary=summary,
            error=error,
            overflow=overflow,
        )

        summarize_response.additional_properties = d
        return summarize_response

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
