from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.cache_life import CacheLife
from ..models.decision_kind import DecisionKind
from ..models.guard import Guard
from ..models.trigger import Trigger
from ..types import UNSET, Unset

T = TypeVar("T", bound="DueConversation")


@_attrs_define
class DueConversation:
    """
    Attributes:
        conversation_id (str):
        decision (DecisionKind): What to do: keep going, compact in place, or roll over into a new conversation.
        reason (str):
        used (int):
        cache_life (CacheLife): How long the provider keeps the prompt cached.
        trigger (None | Trigger | Unset):
        guard (Guard | None | Unset):
        last_turn_at (datetime.datetime | None | Unset):
    """

    conversation_id: str
    decision: DecisionKind
    reason: str
    used: int
    cache_life: CacheLife
    trigger: None | Trigger | Unset = UNSET
    guard: Guard | None | Unset = UNSET
    last_turn_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        decision = self.decision.value

        reason = self.reason

        used = self.used

        cache_life = self.cache_life.value

        trigger: None | str | Unset
        if isinstance(self.trigger, Unset):
            trigger = UNSET
        elif isinstance(self.trigger, Trigger):
            trigger = self.trigger.value
        else:
            trigger = self.trigger

        guard: None | str | Unset
        if isinstance(self.guard, Unset):
            guard = UNSET
        elif isinstance(self.guard, Guard):
            guard = self.guard.value
        else:
            guard = self.guard

        last_turn_at: None | str | Unset
        if isinstance(self.last_turn_at, Unset):
            last_turn_at = UNSET
        elif isinstance(self.last_turn_at, datetime.datetime):
            last_turn_at = self.last_turn_at.isoformat()
        else:
            last_turn_at = self.last_turn_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversation_id": conversation_id,
                "decision": decision,
                "reason": reason,
                "used": used,
                "cache_life": cache_life,
            }
        )
        if trigger is not UNSET:
            field_dict["trigger"] = trigger
        if guard is not UNSET:
            field_dict["guard"] = guard
        if last_turn_at is not UNSET:
            field_dict["last_turn_at"] = last_turn_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        decision = DecisionKind(d.pop("decision"))

        reason = d.pop("reason")

        used = d.pop("used")

        cache_life = CacheLife(d.pop("cache_life"))

        def _parse_trigger(data: object) -> None | Trigger | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                trigger_type_1 = Trigger(data)

                return trigger_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Trigger | Unset, data)

        trigger = _parse_trigger(d.pop("trigger", UNSET))

        def _parse_guard(data: object) -> Guard | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                guard_type_1 = Guard(data)

                return guard_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Guard | None | Unset, data)

        guard = _parse_guard(d.pop("guard", UNSET))

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

        due_conversation = cls(
            conversation_id=conversation_id,
            decision=decision,
            reason=reason,
            used=used,
            cache_life=cache_life,
            trigger=trigger,
            guard=guard,
            last_turn_at=last_turn_at,
        )

        due_conversation.additional_properties = d
        return due_conversation

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
