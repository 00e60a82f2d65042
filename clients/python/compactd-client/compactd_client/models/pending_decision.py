from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.decision_kind import DecisionKind
from ..models.guard import Guard
from ..models.moment import Moment
from ..models.trigger import Trigger
from ..types import UNSET, Unset

T = TypeVar("T", bound="PendingDecision")


@_attrs_define
class PendingDecision:
    """A non-keep decision as it was logged.

    Attributes:
        decision (DecisionKind): What to do: keep going, compact in place, or roll over into a new conversation.
        reason (str):
        moment (Moment): When the caller asks: at a turn's end, while idle, or before the next user message.
        at (datetime.datetime):
        trigger (None | Trigger | Unset):
        guard (Guard | None | Unset):
        event_seq (int | None | Unset): The seq of its `decision` event.
    """

    decision: DecisionKind
    reason: str
    moment: Moment
    at: datetime.datetime
    trigger: None | Trigger | Unset = UNSET
    guard: Guard | None | Unset = UNSET
    event_seq: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision.value

        reason = self.reason

        moment = self.moment.value

        at = self.at.isoformat()

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

        event_seq: int | None | Unset
        if isinstance(self.event_seq, Unset):
            event_seq = UNSET
        else:
            event_seq = self.event_seq

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "decision": decision,
                "reason": reason,
                "moment": moment,
                "at": at,
            }
        )
        if trigger is not UNSET:
            field_dict["trigger"] = trigger
        if guard is not UNSET:
            field_dict["guard"] = guard
        if event_seq is not UNSET:
            field_dict["event_seq"] = event_seq

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        decision = DecisionKind(d.pop("decision"))

        reason = d.pop("reason")

        moment = Moment(d.pop("moment"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

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

        def _parse_event_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        event_seq = _parse_event_seq(d.pop("event_seq", UNSET))

        pending_decision = cls(
            decision=decision,
            reason=reason,
            moment=moment,
            at=at,
            trigger=trigger,
            guard=guard,
            event_seq=event_seq,
        )

        pending_decision.additional_properties = d
        return pending_decision

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
