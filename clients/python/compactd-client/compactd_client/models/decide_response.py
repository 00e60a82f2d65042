from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.decision_kind import DecisionKind
from ..models.guard import Guard
from ..models.moment import Moment
from ..models.trigger import Trigger
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conversation_state import ConversationState


T = TypeVar("T", bound="DecideResponse")


@_attrs_define
class DecideResponse:
    """
    Attributes:
        decision (DecisionKind): What to do: keep going, compact in place, or roll over into a new conversation.
        reason (str): One plain sentence for a person.
        moment (Moment): When the caller asks: at a turn's end, while idle, or before the next user message.
        at (datetime.datetime):
        trigger (None | Trigger | Unset):
        guard (Guard | None | Unset):
        keep_instructions (None | str | Unset): With `compact`: what the summary must keep, for a harness that writes
            it.
        state (ConversationState | None | Unset):
    """

    decision: DecisionKind
    reason: str
    moment: Moment
    at: datetime.datetime
    trigger: None | Trigger | Unset = UNSET
    guard: Guard | None | Unset = UNSET
    keep_instructions: None | str | Unset = UNSET
    state: ConversationState | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.conversation_state import ConversationState  # noqa: PLC0415

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

        keep_instructions: None | str | Unset
        if isinstance(self.keep_instructions, Unset):
            keep_instructions = UNSET
        else:
            keep_instructions = self.keep_instructions

        state: dict[str, Any] | None | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, ConversationState):
            state = self.state.to_dict()
        else:
            state = self.state

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
        if keep_instructions is not UNSET:
            field_dict["keep_instructions"] = keep_instructions
        if state is not UNSET:
            field_dict["state"] = state

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.conversation_state import ConversationState  # noqa: PLC0415

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

        def _parse_keep_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        keep_instructions = _parse_keep_instructions(d.pop("keep_instructions", UNSET))

        def _parse_state(data: object) -> ConversationState | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                state_type_1 = ConversationState.from_dict(data)

                return state_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConversationState | None | Unset, data)

        state = _parse_state(d.pop("state", UNSET))

        decide_response = cls(
            decision=decision,
            reason=reason,
            moment=moment,
            at=at,
            trigger=trigger,
            guard=guard,
            keep_instructions=keep_instructions,
            state=state,
        )

        decide_response.additional_properties = d
        return decide_response

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
