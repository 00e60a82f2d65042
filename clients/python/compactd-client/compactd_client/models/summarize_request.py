from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.compaction_trigger import CompactionTrigger
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.transcript_message import TranscriptMessage


T = TypeVar("T", bound="SummarizeRequest")


@_attrs_define
class SummarizeRequest:
    """
    Attributes:
        conversation_id (str):  Example: support-4711.
        messages (list[TranscriptMessage] | None | Unset): The transcript since the last boundary; absent: the turns
            stored since it.
        summary (None | str | Unset): A summary the harness wrote itself: recorded as is, no LLM is called.
        trigger (CompactionTrigger | None | Unset):
        by_host (bool | None | Unset): The caller asked for it (default true); counts toward `too_many_today`.
        idle (bool | None | Unset): Compacted while idle (default false).
        tokens_before (int | None | Unset): The context's size before; absent: counted with a real tokenizer.
        keep_recent_tokens (int | None | Unset): Keep about this many tokens of the newest messages verbatim.
        at (datetime.datetime | None | Unset): When it happened (RFC 3339); the server's clock when absent.
        harness (None | str | Unset): Which harness the compaction is for, usually the one that wrote
            `summary` (`claude-code`, `codex`, …): the ledger keeps it, and
            `/compactions?harness=` lists that harness's compactions. Example: claude-code.
        invented (list[str] | None | Unset): With `summary`: identifiers the caller found in it that the
            conversation never named (a path, an id, a figure the harness made
            up), each as it stands in `summary`, at most 200. The ledger counts
            them by kind (`keep.invented`), as it counts a model's. Example: ['src/billing/retry_v2.rs'].
    """

    conversation_id: str
    messages: list[TranscriptMessage] | None | Unset = UNSET
    summary: None | str | Unset = UNSET
    trigger: CompactionTrigger | None | Unset = UNSET
    by_host: bool | None | Unset = UNSET
    idle: bool | None | Unset = UNSET
    tokens_before: int | None | Unset = UNSET
    keep_recent_tokens: int | None | Unset = UNSET
    at: datetime.datetime | None | Unset = UNSET
    harness: None | str | Unset = UNSET
    invented: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        messages: list[dict[str, Any]] | None | Unset
        if isinstance(self.messages, Unset):
            messages = UNSET
        elif isinstance(self.messages, list):
            messages = []
            for messages_type_0_item_data in self.messages:
                messages_type_0_item = messages_type_0_item_data.to_dict()
                messages.append(messages_type_0_item)

        else:
            messages = self.messages

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        trigger: None | str | Unset
        if isinstance(self.trigger, Unset):
            trigger = UNSET
        elif isinstance(self.trigger, CompactionTrigger):
            trigger = self.trigger.value
        else:
            trigger = self.trigger

        by_host: bool | None | Unset
        if isinstance(self.by_host, Unset):
            by_host = UNSET
        else:
            by_host = self.by_host

        idle: bool | None | Unset
        if isinstance(self.idle, Unset):
            idle = UNSET
        else:
            idle = self.idle

        tokens_before: int | None | Unset
        if isinstance(self.tokens_before, Unset):
            tokens_before = UNSET
        else:
            tokens_before = self.tokens_before

        keep_recent_tokens: int | None | Unset
        if isinstance(self.keep_recent_tokens, Unset):
            keep_recent_tokens = UNSET
        else:
            keep_recent_tokens = self.keep_recent_tokens

        at: None | str | Unset
        if isinstance(self.at, Unset):
            at = UNSET
        elif isinstance(self.at, datetime.datetime):
            at = self.at.isoformat()
        else:
            at = self.at

        harness: None | str | Unset
        if isinstance(self.harness, Unset):
            harness = UNSET
        else:
            harness = self.harness

        invented: list[str] | None | Unset
        if isinstance(self.invented, Unset):
            invented = UNSET
        elif isinstance(self.invented, list):
            invented = self.invented

        else:
            invented = self.invented

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "conversation_id": conversation_id,
            }
        )
        if messages is not UNSET:
            field_dict["messages"] = messages
        if summary is not UNSET:
            field_dict["summary"] = summary
        if trigger is not UNSET:
            field_dict["trigger"] = trigger
        if by_host is not UNSET:
            field_dict["by_host"] = by_host
        if idle is not UNSET:
            field_dict["idle"] = idle
        if tokens_before is not UNSET:
            field_dict["tokens_before"] = tokens_before
        if keep_recent_tokens is not UNSET:
            field_dict["keep_recent_tokens"] = keep_recent_tokens
        if at is not UNSET:
            field_dict["at"] = at
        if harness is not UNSET:
            field_dict["harness"] = harness
        if invented is not UNSET:
            field_dict["invented"] = invented

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.transcript_message import TranscriptMessage  # noqa: PLC0415

        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        def _parse_messages(data: object) -> list[TranscriptMessage] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                messages_type_0 = []
                _messages_type_0 = data
                for messages_type_0_item_data in _messages_type_0:
                    messages_type_0_item = TranscriptMessage.from_dict(messages_type_0_item_data)

                    messages_type_0.append(messages_type_0_item)

                return messages_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TranscriptMessage] | None | Unset, data)

        messages = _parse_messages(d.pop("messages", UNSET))

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        def _parse_trigger(data: object) -> CompactionTrigger | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                trigger_type_1 = CompactionTrigger(data)

                return trigger_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CompactionTrigger | None | Unset, data)

        trigger = _parse_trigger(d.pop("trigger", UNSET))

        def _parse_by_host(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        by_host = _parse_by_host(d.pop("by_host", UNSET))

        def _parse_idle(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        idle = _parse_idle(d.pop("idle", UNSET))

        def _parse_tokens_before(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tokens_before = _parse_tokens_before(d.pop("tokens_before", UNSET))

        def _parse_keep_recent_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        keep_recent_tokens = _parse_keep_recent_tokens(d.pop("keep_recent_tokens", UNSET))

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

        def _parse_harness(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        harness = _parse_harness(d.pop("harness", UNSET))

        def _parse_invented(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                invented_type_0 = cast(list[str], data)

                return invented_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        invented = _parse_invented(d.pop("invented", UNSET))

        summarize_request = cls(
            conversation_id=conversation_id,
            messages=messages,
            summary=summary,
            trigger=trigger,
            by_host=by_host,
            idle=idle,
            tokens_before=tokens_before,
            keep_recent_tokens=keep_recent_tokens,
            at=at,
            harness=harness,
            invented=invented,
        )

        return summarize_request
