from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.cache_life import CacheLife
from ..types import UNSET, Unset

T = TypeVar("T", bound="UsageRequest")


@_attrs_define
class UsageRequest:
    """A usage report: what the last model call used.

    Attributes:
        conversation_id (str): 1–200 printable characters, chosen by the caller. Example: support-4711.
        used (int): Context tokens in use now. Example: 120000.
        size (int | None | Unset): The context window's size; 0 or absent leaves the known size. Example: 200000.
        input_ (int | None | Unset): Input tokens of the model call.
        cached_read (int | None | Unset): Of those, read from the prompt cache.
        cache_written (int | None | Unset): Tokens written to the prompt cache.
        output (int | None | Unset): Output tokens of the model call.
        cache_life (CacheLife | None | Unset):
        context_pressure_tokens (int | None | Unset): This conversation's context-pressure threshold; 0 clears it.
        at (datetime.datetime | None | Unset): When it happened (RFC 3339); the server's clock when absent.
        model (None | str | Unset): The model the call went to: the tokens a compaction spares each later
            call are priced at it (`COMPACTD_PRICES`; unnamed: its `*` entry). Example: claude-sonnet-4-5.
    """

    conversation_id: str
    used: int
    size: int | None | Unset = UNSET
    input_: int | None | Unset = UNSET
    cached_read: int | None | Unset = UNSET
    cache_written: int | None | Unset = UNSET
    output: int | None | Unset = UNSET
    cache_life: CacheLife | None | Unset = UNSET
    context_pressure_tokens: int | None | Unset = UNSET
    at: datetime.datetime | None | Unset = UNSET
    model: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        used = self.used

        size: int | None | Unset
        if isinstance(self.size, Unset):
            size = UNSET
        else:
            size = self.size

        input_: int | None | Unset
        if isinstance(self.input_, Unset):
            input_ = UNSET
        else:
            input_ = self.input_

        cached_read: int | None | Unset
        if isinstance(self.cached_read, Unset):
            cached_read = UNSET
        else:
            cached_read = self.cached_read

        cache_written: int | None | Unset
        if isinstance(self.cache_written, Unset):
            cache_written = UNSET
        else:
            cache_written = self.cache_written

        output: int | None | Unset
        if isinstance(self.output, Unset):
            output = UNSET
        else:
            output = self.output

        cache_life: None | str | Unset
        if isinstance(self.cache_life, Unset):
            cache_life = UNSET
        elif isinstance(self.cache_life, CacheLife):
            cache_life = self.cache_life.value
        else:
            cache_life = self.cache_life

        context_pressure_tokens: int | None | Unset
        if isinstance(self.context_pressure_tokens, Unset):
            context_pressure_tokens = UNSET
        else:
            context_pressure_tokens = self.context_pressure_tokens

        at: None | str | Unset
        if isinstance(self.at, Unset):
            at = UNSET
        elif isinstance(self.at, datetime.datetime):
            at = self.at.isoformat()
        else:
            at = self.at

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "conversation_id": conversation_id,
                "used": used,
            }
        )
        if size is not UNSET:
            field_dict["size"] = size
        if input_ is not UNSET:
            field_dict["input"] = input_
        if cached_read is not UNSET:
            field_dict["cached_read"] = cached_read
        if cache_written is not UNSET:
            field_dict["cache_written"] = cache_written
        if output is not UNSET:
            field_dict["output"] = output
        if cache_life is not UNSET:
            field_dict["cache_life"] = cache_life
        if context_pressure_tokens is not UNSET:
            field_dict["context_pressure_tokens"] = context_pressure_tokens
        if at is not UNSET:
            field_dict["at"] = at
        if model is not UNSET:
            field_dict["model"] = model

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        used = d.pop("used")

        def _parse_size(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        size = _parse_size(d.pop("size", UNSET))

        def _parse_input_(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        input_ = _parse_input_(d.pop("input", UNSET))

        def _parse_cached_read(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cached_read = _parse_cached_read(d.pop("cached_read", UNSET))

        def _parse_cache_written(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cache_written = _parse_cache_written(d.pop("cache_written", UNSET))

        def _parse_output(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        output = _parse_output(d.pop("output", UNSET))

        def _parse_cache_life(data: object) -> CacheLife | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                cache_life_type_1 = CacheLife(data)

                return cache_life_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CacheLife | None | Unset, data)

        cache_life = _parse_cache_life(d.pop("cache_life", UNSET))

        def _parse_context_pressure_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        context_pressure_tokens = _parse_context_pressure_tokens(d.pop("context_pressure_tokens", UNSET))

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

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        usage_request = cls(
            conversation_id=conversation_id,
            used=used,
            size=size,
            input_=input_,
            cached_read=cached_read,
            cache_written=cache_written,
            output=output,
            cache_life=cache_life,
            context_pressure_tokens=context_pressure_tokens,
            at=at,
            model=model,
        )

        return usage_request
