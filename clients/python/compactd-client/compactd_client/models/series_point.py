from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SeriesPoint")


@_attrs_define
class SeriesPoint:
    """
    Attributes:
        start (datetime.datetime): The bucket's start.
        trigger (str):
        count (int):
        successes (int):
        failures (int):
        tokens_saved (int):
    """

    start: datetime.datetime
    trigger: str
    count: int
    successes: int
    failures: int
    tokens_saved: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        start = self.start.isoformat()

        trigger = self.trigger

        count = self.count

        successes = self.successes

        failures = self.failures

        tokens_saved = self.tokens_saved

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "start": start,
                "trigger": trigger,
                "count": count,
                "successes": successes,
                "failures": failures,
                "tokens_saved": tokens_saved,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        start = datetime.datetime.fromisoformat(d.pop("start"))

        trigger = d.pop("trigger")

        count = d.pop("count")

        successes = d.pop("successes")

        failures = d.pop("failures")

        tokens_saved = d.pop("tokens_saved")

        series_point = cls(
            start=start,
            trigger=trigger,
            count=count,
            successes=successes,
            failures=failures,
            tokens_saved=tokens_saved,
        )

        series_point.additional_properties = d
        return series_point

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
