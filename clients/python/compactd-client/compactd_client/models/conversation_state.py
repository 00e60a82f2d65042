from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.cache_life import CacheLife
from ..models.cache_life_source import CacheLifeSource
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.model_call import ModelCall
    from ..models.pending_decision import PendingDecision
    from ..models.summary import Summary


T = TypeVar("T", bound="ConversationState")


@_attrs_define
class ConversationState:
    """A conversation's state (SPEC §1), with its summary, pending decision and lineage.

    Attributes:
        conversation_id (str):
        used (int): Context tokens in use, from the last usage report.
        size (int): The context window's size (0 until a report gives one).
        cache_life (CacheLife): How long the provider keeps the prompt cached.
        cache_life_source (CacheLifeSource): Where the cache life came from.
        created_at (datetime.datetime): The `at` of the first event seen for it.
        turns_since_compaction (int):
        compactions (int): Successful compactions of any kind.
        host_compactions_24h (list[datetime.datetime]): Times of compactions the caller asked for, within 24 hours of
            the latest.
        idle_compacted (bool):
        rollover_declined (bool):
        total_user_messages (int):
        user_messages_since_boundary (int):
        runs_completed_since_boundary (int):
        user_messages_since_run_completed (int):
        failed_compactions_in_row (int): Consecutive failed compaction attempts (the `failing` guard reads it).
        event_count (int): Events in its log (the seq of the latest).
        turn_count (int): Turns stored (the id of the latest).
        updated_at (datetime.datetime):
        context_pressure_tokens (int | None | Unset): This conversation's own context-pressure threshold, if set.
        last_turn_at (datetime.datetime | None | Unset):
        used_after_compaction (int | None | Unset): Context in use reported just after the last compaction.
        summary (None | Summary | Unset):
        pending_decision (None | PendingDecision | Unset):
        last_call (ModelCall | None | Unset):
        predecessor_id (None | str | Unset):
        successor_id (None | str | Unset):
    """

    conversation_id: str
    used: int
    size: int
    cache_life: CacheLife
    cache_life_source: CacheLifeSource
    created_at: datetime.datetime
    turns_since_compaction: int
    compactions: int
    host_compactions_24h: list[datetime.datetime]
    idle_compacted: bool
    rollover_declined: bool
    total_user_messages: int
    user_messages_since_boundary: int
    runs_completed_since_boundary: int
    user_messages_since_run_completed: int
    failed_compactions_in_row: int
    event_count: int
    turn_count: int
    updated_at: datetime.datetime
    context_pressure_tokens: int | None | Unset = UNSET
    last_turn_at: datetime.datetime | None | Unset = UNSET
    used_after_compaction: int | None | Unset = UNSET
    summary: None | Summary | Unset = UNSET
    pending_decision: None | PendingDecision | Unset = UNSET
    last_call: ModelCall | None | Unset = UNSET
    predecessor_id: None | str | Unset = UNSET
    successor_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.model_call import ModelCall  # noqa: PLC0415
        from ..models.pending_decision import PendingDecision  # noqa: PLC0415
        from ..models.summary import Summary  # noqa: PLC0415

        conversation_id = self.conversation_id

        used = self.used

        size = self.size

        cache_life = self.cache_life.value

        cache_life_source = self.cache_life_source.value

        created_at = self.created_at.isoformat()

        turns_since_compaction = self.turns_since_compaction

        compactions = self.compactions

        host_compactions_24h = []
        for host_compactions_24h_item_data in self.host_compactions_24h:
            host_compactions_24h_item = host_compactions_24h_item_data.isoformat()
            host_compactions_24h.append(host_compactions_24h_item)

        idle_compacted = self.idle_compacted

        rollover_declined = self.rollover_declined

        total_user_messages = self.total_user_messages

        user_messages_since_boundary = self.user_messages_since_boundary

        runs_completed_since_boundary = self.runs_completed_since_boundary

        user_messages_since_run_completed = self.user_messages_since_run_completed

        failed_compactions_in_row = self.failed_compactions_in_row

        event_count = self.event_count

        turn_count = self.turn_count

        updated_at = self.updated_at.isoformat()

        context_pressure_tokens: int | None | Unset
        if isinstance(self.context_pressure_tokens, Unset):
            context_pressure_tokens = UNSET
        else:
            context_pressure_tokens = self.context_pressure_tokens

        last_turn_at: None | str | Unset
        if isinstance(self.last_turn_at, Unset):
            last_turn_at = UNSET
        elif isinstance(self.last_turn_at, datetime.datetime):
            last_turn_at = self.last_turn_at.isoformat()
        else:
            last_turn_at = self.last_turn_at

        used_after_compaction: int | None | Unset
        if isinstance(self.used_after_compaction, Unset):
            used_after_compaction = UNSET
        else:
            used_after_compaction = self.used_after_compaction

        summary: dict[str, Any] | None | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        elif isinstance(self.summary, Summary):
            summary = self.summary.to_dict()
        else:
            summary = self.summary

        pending_decision: dict[str, Any] | None | Unset
        if isinstance(self.pending_decision, Unset):
            pending_decision = UNSET
        elif isinstance(self.pending_decision, PendingDecision):
            pending_decision = self.pending_decision.to_dict()
        else:
            pending_decision = self.pending_decision

        last_call: dict[str, Any] | None | Unset
        if isinstance(self.last_call, Unset):
            last_call = UNSET
        elif isinstance(self.last_call, ModelCall):
            last_call = self.last_call.to_dict()
        else:
            last_call = self.last_call

        predecessor_id: None | str | Unset
        if isinstance(self.predecessor_id, Unset):
            predecessor_id = UNSET
        else:
            predecessor_id = self.predecessor_id

        successor_id: None | str | Unset
        if isinstance(self.successor_id, Unset):
            successor_id = UNSET
        else:
            successor_id = self.successor_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversation_id": conversation_id,
                "used": used,
                "size": size,
                "cache_life": cache_life,
                "cache_life_source": cache_life_source,
                "created_at": created_at,
                "turns_since_compaction": turns_since_compaction,
                "compactions": compactions,
                "host_compactions_24h": host_compactions_24h,
                "idle_compacted": idle_compacted,
                "rollover_declined": rollover_declined,
                "total_user_messages": total_user_messages,
                "user_messages_since_boundary": user_messages_since_boundary,
                "runs_completed_since_boundary": runs_completed_since_boundary,
                "user_messages_since_run_completed": user_messages_since_run_completed,
                "failed_compactions_in_row": failed_compactions_in_row,
                "event_count": event_count,
                "turn_count": turn_count,
                "updated_at": updated_at,
            }
        )
        if context_pressure_tokens is not UNSET:
            field_dict["context_pressure_tokens"] = context_pressure_tokens
        if last_turn_at is not UNSET:
            field_dict["last_turn_at"] = last_turn_at
        if used_after_compaction is not UNSET:
            field_dict["used_after_compaction"] = used_after_compaction
        if summary is not UNSET:
            field_dict["summary"] = summary
        if pending_decision is not UNSET:
            field_dict["pending_decision"] = pending_decision
        if last_call is not UNSET:
            field_dict["last_call"] = last_call
        if predecessor_id is not UNSET:
            field_dict["predecessor_id"] = predecessor_id
        if successor_id is not UNSET:
            field_dict["successor_id"] = successor_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.model_call import ModelCall  # noqa: PLC0415
        from ..models.pending_decision import PendingDecision  # noqa: PLC0415
        from ..models.summary import Summary  # noqa: PLC0415

        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        used = d.pop("used")

        size = d.pop("size")

        cache_life = CacheLife(d.pop("cache_life"))

        cache_life_source = CacheLifeSource(d.pop("cache_life_source"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        turns_since_compaction = d.pop("turns_since_compaction")

        compactions = d.pop("compactions")

        host_compactions_24h = []
        _host_compactions_24h = d.pop("host_compactions_24h")
        for host_compactions_24h_item_data in _host_compactions_24h:
            host_compactions_24h_item = datetime.datetime.fromisoformat(host_compactions_24h_item_data)

            host_compactions_24h.append(host_compactions_24h_item)

        idle_compacted = d.pop("idle_compacted")

        rollover_declined = d.pop("rollover_declined")

        total_user_messages = d.pop("total_user_messages")

        user_messages_since_boundary = d.pop("user_messages_since_boundary")

        runs_completed_since_boundary = d.pop("runs_completed_since_boundary")

        user_messages_since_run_completed = d.pop("user_messages_since_run_completed")

        failed_compactions_in_row = d.pop("failed_compactions_in_row")

        event_count = d.pop("event_count")

        turn_count = d.pop("turn_count")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_context_pressure_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        context_pressure_tokens = _parse_context_pressure_tokens(d.pop("context_pressure_tokens", UNSET))

        def _parse_last_turn_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_turn_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_turn_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_turn_at = _parse_last_turn_at(d.pop("last_turn_at", UNSET))

        def _parse_used_after_compaction(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        used_after_compaction = _parse_used_after_compaction(d.pop("used_after_compaction", UNSET))

        def _parse_summary(data: object) -> None | Summary | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                summary_type_1 = Summary.from_dict(data)

                return summary_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Summary | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        def _parse_pending_decision(data: object) -> None | PendingDecision | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pending_decision_type_1 = PendingDecision.from_dict(data)

                return pending_decision_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PendingDecision | Unset, data)

        pending_decision = _parse_pending_decision(d.pop("pending_decision", UNSET))

        def _parse_last_call(data: object) -> ModelCall | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_call_type_1 = ModelCall.from_dict(data)

                return last_call_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ModelCall | None | Unset, data)

        last_call = _parse_last_call(d.pop("last_call", UNSET))

        def _parse_predecessor_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        predecessor_id = _parse_predecessor_id(d.pop("predecessor_id", UNSET))

        def _parse_successor_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        successor_id = _parse_successor_id(d.pop("successor_id", UNSET))

        conversation_state = cls(
            conversation_id=conversation_id,
            used=used,
            size=size,
            cache_life=cache_life,
            cache_life_source=cache_life_source,
            created_at=created_at,
            turns_since_compaction=turns_since_compaction,
            compactions=compactions,
            host_compactions_24h=host_compactions_24h,
            idle_compacted=idle_compacted,
            rollover_declined=rollover_declined,
            total_user_messages=total_user_messages,
            user_messages_since_boundary=user_messages_since_boundary,
            runs_completed_since_boundary=runs_completed_since_boundary,
            user_messages_since_run_completed=user_messages_since_run_completed,
            failed_compactions_in_row=failed_compactions_in_row,
            event_count=event_count,
            turn_count=turn_count,
            updated_at=updated_at,
            context_pressure_tokens=context_pressure_tokens,
            last_turn_at=last_turn_at,
            used_after_compaction=used_after_compaction,
            summary=summary,
            pending_decision=pending_decision,
            last_call=last_call,
            predecessor_id=predecessor_id,
            successor_id=successor_id,
        )

        conversation_state.additional_properties = d
        return conversation_state

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
