from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.wasted_count import WastedCount


T = TypeVar("T", bound="PreparationFigures")


@_attrs_define
class PreparationFigures:
    """Summaries prepared ahead (`COMPACTD_PREPARE_AT_PERCENT`): compactions in
    the span that merged one, and the preparations the span's usage reports
    planned, by what became of them.

        Attributes:
            prepared_compactions (int): Compactions that merged a prepared summary (no upstream call of their own).
            planned (int): Preparations planned…
            waiting (int): …still to be written…
            ready (int): …written and waiting for a compaction…
            used (int): …merged by a compaction…
            wasted (int): …written and never used (their upstream tokens spent for nothing)…
            dropped (int): …or never written (a compaction came first, the budget was spent, the upstream failed).
            upstream_input_tokens (int): Upstream tokens the preparations took (they count against the daily budget).
            upstream_output_tokens (int):
            wasted_by_reason (list[WastedCount]): The wasted ones by reason, most first.
            wasted_rate (float | None | Unset): `wasted / (used + wasted)`: the share of the written ones no compaction
                used.
    """

    prepared_compactions: int
    planned: int
    waiting: int
    ready: int
    used: int
    wasted: int
    dropped: int
    upstream_input_tokens: int
    upstream_output_tokens: int
    wasted_by_reason: list[WastedCount]
    wasted_rate: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        prepared_compactions = self.prepared_compactions

        planned = self.planned

        waiting = self.waiting

        ready = self.ready

        used = self.used

        wasted = self.wasted

        dropped = self.dropped

        upstream_input_tokens = self.upstream_input_tokens

        upstream_output_tokens = self.upstream_output_tokens

        wasted_by_reason = []
        for wasted_by_reason_item_data in self.wasted_by_reason:
            wasted_by_reason_item = wasted_by_reason_item_data.to_dict()
            wasted_by_reason.append(wasted_by_reason_item)

        wasted_rate: float | None | Unset
        if isinstance(self.wasted_rate, Unset):
            wasted_rate = UNSET
        else:
            wasted_rate = self.wasted_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "prepared_compactions": prepared_compactions,
                "planned": planned,
                "waiting": waiting,
                "ready": ready,
                "used": used,
                "wasted": wasted,
                "dropped": dropped,
                "upstream_input_tokens": upstream_input_tokens,
                "upstream_output_tokens": upstream_output_tokens,
                "wasted_by_reason": wasted_by_reason,
            }
        )
        if wasted_rate is not UNSET:
            field_dict["wasted_rate"] = wasted_rate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.wasted_count import WastedCount  # noqa: PLC0415

        d = dict(src_dict)
        prepared_compactions = d.pop("prepared_compactions")

        planned = d.pop("planned")

        waiting = d.pop("waiting")

        ready = d.pop("ready")

        used = d.pop("used")

        wasted = d.pop("wasted")

        dropped = d.pop("dropped")

        upstream_input_tokens = d.pop("upstream_input_tokens")

        upstream_output_tokens = d.pop("upstream_output_tokens")

        wasted_by_reason = []
        _wasted_by_reason = d.pop("wasted_by_reason")
        for wasted_by_reason_item_data in _wasted_by_reason:
            wasted_by_reason_item = WastedCount.from_dict(wasted_by_reason_item_data)

            wasted_by_reason.append(wasted_by_reason_item)

        def _parse_wasted_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        wasted_rate = _parse_wasted_rate(d.pop("wasted_rate", UNSET))

        preparation_figures = cls(
            prepared_compactions=prepared_compactions,
            planned=planned,
            waiting=waiting,
            ready=ready,
            used=used,
            wasted=wasted,
            dropped=dropped,
            upstream_input_tokens=upstream_input_tokens,
            upstream_output_tokens=upstream_output_tokens,
            wasted_by_reason=wasted_by_reason,
            wasted_rate=wasted_rate,
        )

        preparation_figures.additional_properties = d
        return preparation_figures

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
