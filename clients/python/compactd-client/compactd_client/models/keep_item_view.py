from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.keep_kind import KeepKind
from ..models.source import Source
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.place_view import PlaceView


T = TypeVar("T", bound="KeepItemView")


@_attrs_define
class KeepItemView:
    """
    Attributes:
        kind (KeepKind): What a must-keep item is: the latest request, a prohibition, a path, URL, id, command or
            quantity, or a file the agent changed.
        text (str): Word for word (at most 300 characters; a request at most 2,000).
        source (Source): Where a must-keep item was seen: the user, the assistant, a tool call, or tool output (and
            harness text).
        sources (list[Source]): Every source it was seen in.
        first_seen (PlaceView): Where an item was seen: a stored turn, or a message of a /summarize delta.
        last_seen (PlaceView): Where an item was seen: a stored turn, or a message of a /summarize delta.
        times_seen (int):
        in_summary (bool): The current summary holds it word for word.
        tier (int | None | Unset): Its budget tier (1 request, 2 prohibitions, 3 named by the user, 4 files
            changed, 6 named by the agent, 7 tool output mentioned again); null: no
            summary carries it (it was only ever seen in tool output).
    """

    kind: KeepKind
    text: str
    source: Source
    sources: list[Source]
    first_seen: PlaceView
    last_seen: PlaceView
    times_seen: int
    in_summary: bool
    tier: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        text = self.text

        source = self.source.value

        sources = []
        for sources_item_data in self.sources:
            sources_item = sources_item_data.value
            sources.append(sources_item)

        first_seen = self.first_seen.to_dict()

        last_seen = self.last_seen.to_dict()

        times_seen = self.times_seen

        in_summary = self.in_summary

        tier: int | None | Unset
        if isinstance(self.tier, Unset):
            tier = UNSET
        else:
            tier = self.tier

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "text": text,
                "source": source,
                "sources": sources,
                "first_seen": first_seen,
                "last_seen": last_seen,
                "times_seen": times_seen,
                "in_summary": in_summary,
            }
        )
        if tier is not UNSET:
            field_dict["tier"] = tier

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.place_view import PlaceView  # noqa: PLC0415

        d = dict(src_dict)
        kind = KeepKind(d.pop("kind"))

        text = d.pop("text")

        source = Source(d.pop("source"))

        sources = []
        _sources = d.pop("sources")
        for sources_item_data in _sources:
            sources_item = Source(sources_item_data)

            sources.append(sources_item)

        first_seen = PlaceView.from_dict(d.pop("first_seen"))

        last_seen = PlaceView.from_dict(d.pop("last_seen"))

        times_seen = d.pop("times_seen")

        in_summary = d.pop("in_summary")

        def _parse_tier(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tier = _parse_tier(d.pop("tier", UNSET))

        keep_item_view = cls(
            kind=kind,
            text=text,
            source=source,
            sources=sources,
            first_seen=first_seen,
            last_seen=last_seen,
            times_seen=times_seen,
            in_summary=in_summary,
            tier=tier,
        )

        keep_item_view.additional_properties = d
        return keep_item_view

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
