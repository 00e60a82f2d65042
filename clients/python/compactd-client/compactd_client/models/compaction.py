from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.trigger import Trigger
from ..models.writer import Writer
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.keep_counts import KeepCounts
    from ..models.savings_view import SavingsView


T = TypeVar("T", bound="Compaction")


@_attrs_define
class Compaction:
    """One compaction attempt, successful or not.

    Attributes:
        id (int): Fleet-wide, increasing: the fleet history's cursor.
        seq (int): 1, 2, 3… within the conversation.
        conversation_id (str):
        at (datetime.datetime):
        trigger (Trigger): Why a compaction or rollover is due. Stable: the ledger stores these. `cache_cold` and
            `long_away` only explain a `next_message` rollover.
        by_host (bool): The caller asked for it (it counts toward `too_many_today`).
        idle (bool):
        summarizer (Writer): Who wrote a summary: the upstream LLM, compactd's extractive summarizer, or the caller's
            harness.
        tokens_before (int):
        tokens_after (int):
        tokens_saved (int):
        percent_saved (int): 0–100.
        total_messages (int):
        user_messages (int):
        assistant_messages (int):
        tool_messages (int):
        duration_ms (int):
        success (bool):
        prepared (bool): It merged a summary prepared ahead of time, with the turns since it,
            instead of asking the upstream now.
        recorded_at (datetime.datetime):
        savings (SavingsView): What a compaction saved (SPEC §6): each call the agent reported after it
            did not resend `tokens_saved` tokens, until its next boundary.
        model (None | str | Unset):
        kept_from (int | None | Unset): The index of the first message kept verbatim (with `keep_recent_tokens`).
        upstream_input_tokens (int | None | Unset):
        upstream_output_tokens (int | None | Unset):
        error (None | str | Unset):
        summary (None | str | Unset): The summary it wrote (null when it failed).
        keep (KeepCounts | None | Unset):
        prepared_age_ms (int | None | Unset): How old that prepared summary was: from the `at` of the usage report
            that planned it to this attempt's (null unless `prepared`).
        harness (None | str | Unset): Which harness wrote the summary it reported (`claude-code`, `codex`,
            …); null when compactd wrote it or the harness did not say.
        upstream_calls (int | None | Unset): Upstream calls the summary took: more than one when its delta did not
            fit the summary model's context and was summarized in chunks (null
            when the attempt failed, and for compactions recorded before it was kept).
        fallback (None | str | Unset): Why the summary was written extractively though a model is
            configured (the model's context could not hold the conversation).
        cost_usd (float | None | Unset): What its summary cost upstream, in US dollars: its upstream tokens at
            the summary model's price (`COMPACTD_PRICES`); 0 when no model was
            called; null when one was that has no price.
        net_usd (float | None | Unset): `savings.usd` less `cost_usd`: whether it paid for itself (null when
            either is unknown).
    """

    id: int
    seq: int
    conversation_id: str
    at: datetime.datetime
    trigger: Trigger
    by_host: bool
    idle: bool
    summarizer: Writer
    tokens_before: int
    tokens_after: int
    tokens_saved: int
    percent_saved: int
    total_messages: int
    user_messages: int
    assistant_messages: int
    tool_messages: int
    duration_ms: int
    success: bool
    prepared: bool
    recorded_at: datetime.datetime
    savings: SavingsView
    model: None | str | Unset = UNSET
    kept_from: int | None | Unset = UNSET
    upstream_input_tokens: int | None | Unset = UNSET
    upstream_output_tokens: int | None | Unset = UNSET
    error: None | str | Unset = UNSET
    summary: None | str | Unset = UNSET
    keep: KeepCounts | None | Unset = UNSET
    prepared_age_ms: int | None | Unset = UNSET
    harness: None | str | Unset = UNSET
    upstream_calls: int | None | Unset = UNSET
    fallback: None | str | Unset = UNSET
    cost_usd: float | None | Unset = UNSET
    net_usd: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.keep_counts import KeepCounts  # noqa: PLC0415

        id = self.id

        seq = self.seq

        conversation_id = self.conversation_id

        at = self.at.isoformat()

        trigger = self.trigger.value

        by_host = self.by_host

        idle = self.idle

        summarizer = self.summarizer.value

        tokens_before = self.tokens_before

        tokens_after = self.tokens_after

        tokens_saved = self.tokens_saved

        percent_saved = self.percent_saved

        total_messages = self.total_messages

        user_messages = self.user_messages

        assistant_messages = self.assistant_messages

        tool_messages = self.tool_messages

        duration_ms = self.duration_ms

        success = self.success

        prepared = self.prepared

        recorded_at = self.recorded_at.isoformat()

        savings = self.savings.to_dict()

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        kept_from: int | None | Unset
        if isinstance(self.kept_from, Unset):
            kept_from = UNSET
        else:
            kept_from = self.kept_from

        upstream_input_tokens: int | None | Unset
        if isinstance(self.upstream_input_tokens, Unset):
            upstream_input_tokens = UNSET
        else:
            upstream_input_tokens = self.upstream_input_tokens

        upstream_output_tokens: int | None | Unset
        if isinstance(self.upstream_output_tokens, Unset):
            upstream_output_tokens = UNSET
        else:
            upstream_output_tokens = self.upstream_output_tokens

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        keep: dict[str, Any] | None | Unset
        if isinstance(self.keep, Unset):
            keep = UNSET
        elif isinstance(self.keep, KeepCounts):
            keep = self.keep.to_dict()
        else:
            keep = self.keep

        prepared_age_ms: int | None | Unset
        if isinstance(self.prepared_age_ms, Unset):
            prepared_age_ms = UNSET
        else:
            prepared_age_ms = self.prepared_age_ms

        harness: None | str | Unset
        if isinstance(self.harness, Unset):
            harness = UNSET
        else:
            harness = self.harness

        upstream_calls: int | None | Unset
        if isinstance(self.upstream_calls, Unset):
            upstream_calls = UNSET
        else:
            upstream_calls = self.upstream_calls

        fallback: None | str | Unset
        if isinstance(self.fallback, Unset):
            fallback = UNSET
        else:
            fallback = self.fallback

        cost_usd: float | None | Unset
        if isinstance(self.cost_usd, Unset):
            cost_usd = UNSET
        else:
            cost_usd = self.cost_usd

        net_usd: float | None | Unset
        if isinstance(self.net_usd, Unset):
            net_usd = UNSET
        else:
            net_usd = self.net_usd

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "seq": seq,
                "conversation_id": conversation_id,
                "at": at,
                "trigger": trigger,
                "by_host": by_host,
                "idle": idle,
                "summarizer": summarizer,
                "tokens_before": tokens_before,
                "tokens_after": tokens_after,
                "tokens_saved": tokens_saved,
                "percent_saved": percent_saved,
                "total_messages": total_messages,
                "user_messages": user_messages,
                "assistant_messages": assistant_messages,
                "tool_messages": tool_messages,
                "duration_ms": duration_ms,
                "success": success,
                "prepared": prepared,
                "recorded_at": recorded_at,
                "savings": savings,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if kept_from is not UNSET:
            field_dict["kept_from"] = kept_from
        if upstream_input_tokens is not UNSET:
            field_dict["upstream_input_tokens"] = upstream_input_tokens
        if upstream_output_tokens is not UNSET:
            field_dict["upstream_output_tokens"] = upstream_output_tokens
        if error is not UNSET:
            field_dict["error"] = error
        if summary is not UNSET:
            field_dict["summary"] = summary
        if keep is not UNSET:
            field_dict["keep"] = keep
        if prepared_age_ms is not UNSET:
            field_dict["prepared_age_ms"] = prepared_age_ms
        if harness is not UNSET:
            field_dict["harness"] = harness
        if upstream_calls is not UNSET:
            field_dict["upstream_calls"] = upstream_calls
        if fallback is not UNSET:
            field_dict["fallback"] = fallback
        if cost_usd is not UNSET:
            field_dict["cost_usd"] = cost_usd
        if net_usd is not UNSET:
            field_dict["net_usd"] = net_usd

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.keep_counts import KeepCounts  # noqa: PLC0415
        from ..models.savings_view import SavingsView  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        seq = d.pop("seq")

        conversation_id = d.pop("conversation_id")

        at = datetime.datetime.fromisoformat(d.pop("at"))

        trigger = Trigger(d.pop("trigger"))

        by_host = d.pop("by_host")

        idle = d.pop("idle")

        summarizer = Writer(d.pop("summarizer"))

        tokens_before = d.pop("tokens_before")

        tokens_after = d.pop("tokens_after")

        tokens_saved = d.pop("tokens_saved")

        percent_saved = d.pop("percent_saved")

        total_messages = d.pop("total_messages")

        user_messages = d.pop("user_messages")

        assistant_messages = d.pop("assistant_messages")

        tool_messages = d.pop("tool_messages")

        duration_ms = d.pop("duration_ms")

        success = d.pop("success")

        prepared = d.pop("prepared")

        recorded_at = datetime.datetime.fromisoformat(d.pop("recorded_at"))

        savings = SavingsView.from_dict(d.pop("savings"))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_kept_from(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        kept_from = _parse_kept_from(d.pop("kept_from", UNSET))

        def _parse_upstream_input_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        upstream_input_tokens = _parse_upstream_input_tokens(d.pop("upstream_input_tokens", UNSET))

        def _parse_upstream_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        upstream_output_tokens = _parse_upstream_output_tokens(d.pop("upstream_output_tokens", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        def _parse_keep(data: object) -> KeepCounts | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                keep_type_1 = KeepCounts.from_dict(data)

                return keep_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(KeepCounts | None | Unset, data)

        keep = _parse_keep(d.pop("keep", UNSET))

        def _parse_prepared_age_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        prepared_age_ms = _parse_prepared_age_ms(d.pop("prepared_age_ms", UNSET))

        def _parse_harness(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        harness = _parse_harness(d.pop("harness", UNSET))

        def _parse_upstream_calls(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        upstream_calls = _parse_upstream_calls(d.pop("upstream_calls", UNSET))

        def _parse_fallback(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fallback = _parse_fallback(d.pop("fallback", UNSET))

        def _parse_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        cost_usd = _parse_cost_usd(d.pop("cost_usd", UNSET))

        def _parse_net_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        net_usd = _parse_net_usd(d.pop("net_usd", UNSET))

        compaction = cls(
            id=id,
            seq=seq,
            conversation_id=conversation_id,
            at=at,
            trigger=trigger,
            by_host=by_host,
            idle=idle,
            summarizer=summarizer,
            tokens_before=tokens_before,
            tokens_after=tokens_after,
            tokens_saved=tokens_saved,
            percent_saved=percent_saved,
            total_messages=total_messages,
            user_messages=user_messages,
            assistant_messages=assistant_messages,
            tool_messages=tool_messages,
            duration_ms=duration_ms,
            success=success,
            prepared=prepared,
            recorded_at=recorded_at,
            savings=savings,
            model=model,
            kept_from=kept_from,
            upstream_input_tokens=upstream_input_tokens,
            upstream_output_tokens=upstream_output_tokens,
            error=error,
            summary=summary,
            keep=keep,
            prepared_age_ms=prepared_age_ms,
            harness=harness,
            upstream_calls=upstream_calls,
            fallback=fallback,
            cost_usd=cost_usd,
            net_usd=net_usd,
        )

        compaction.additional_properties = d
        return compaction

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
