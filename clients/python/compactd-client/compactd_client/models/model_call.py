from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ModelCall")


@_attrs_define
class ModelCall:
    """The token counts of one model call.

    Attributes:
        input_ (int | None | Unset):
        cached_read (int | None | Unset):
        cache_written (int | None | Unset):
        output (int | None | Unset):
    """

    input_: int | None | Unset = UNSET
    cached_read: int | None | Unset = UNSET
    cache_written: int | None | Unset = UNSET
    output: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
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

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if input_ is not UNSET:
            field_dict["input"] = input_
        if cached_read is not UNSET:
            field_dict["cached_read"] = cached_read
        if cache_written is not UNSET:
            field_dict["cache_written"] = cache_written
        if output is not UNSET:
            field_dict["output"] = output

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

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

        model_call = cls(
            input_=input_,
            cached_read=cached_read,
            cache_written=cache_written,
            output=output,
        )

        model_call.additional_properties = d
        return model_call

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
