from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.bucket import Bucket

if TYPE_CHECKING:
    from ..models.series_point import SeriesPoint


T = TypeVar("T", bound="StatsSeries")


@_attrs_define
class StatsSeries:
    """
    Attributes:
        bucket (Bucket):
        since (datetime.datetime): The first bucket's start.
        until (datetime.datetime):
        buckets (int): How many buckets `[since, until)` holds (at most 2,000; none when
            `until` is not after `since`).
        truncated (bool): The span asked for held more than 2,000 buckets: `since` was moved
            forward, and these are the latest.
        points (list[SeriesPoint]): One per bucket and trigger with any compaction, oldest first; a
            bucket with none has no point.
    """

    bucket: Bucket
    since: datetime.datetime
    until: datetime.datetime
    buckets: int
    truncated: bool
    points: list[SeriesPoint]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bucket = self.bucket.value

        since = self.since.isoformat()

        until = self.until.isoformat()

        buckets = self.buckets

        truncated = self.truncated

        points = []
        for points_item_data in self.points:
            points_item = points_item_data.to_dict()
            points.append(points_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bucket": bucket,
                "since": since,
                "until": until,
                "buckets": buckets,
                "truncated": truncated,
                "points": points,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.series_point import SeriesPoint  # noqa: PLC0415

        d = dict(src_dict)
        bucket = Bucket(d.pop("bucket"))

        since = datetime.datetime.fromisoformat(d.pop("since"))

        until = datetime.datetime.fromisoformat(d.pop("until"))

        buckets = d.pop("buckets")

        truncated = d.pop("truncated")

        points = []
        _points = d.pop("points")
        for points_item_data in _points:
            points_item = SeriesPoint.from_dict(points_item_data)

            points.append(points_item)

        stats_series = cls(
            bucket=bucket,
            since=since,
            until=until,
            buckets=buckets,
            truncated=truncated,
            points=points,
        )

        stats_series.additional_properties = d
        return stats_series

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
