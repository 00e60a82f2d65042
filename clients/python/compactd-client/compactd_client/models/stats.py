from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.decision_count import DecisionCount
    from ..models.deletion_count import DeletionCount
    from ..models.keep_rate import KeepRate
    from ..models.money_figures import MoneyFigures
    from ..models.preparation_figures import PreparationFigures
    from ..models.trigger_stats import TriggerStats


T = TypeVar("T", bound="Stats")


@_attrs_define
class Stats:
    """
    Attributes:
        money (MoneyFigures): What compactions cost and what they saved, in US dollars (SPEC §6): the
            net says whether they paid for themselves. Null where nothing was priced
            (`COMPACTD_PRICES`).
        triggers (list[TriggerStats]):
        decisions (list[DecisionCount]): Logged decisions by kind (`keep` is not logged).
        rollovers (int): Conversations rolled over into a successor.
        declined_rollovers (int): Rollovers the user declined.
        keep (list[KeepRate]): What the summaries written in the span kept of the keep set, by kind.
        preparation (PreparationFigures): Summaries prepared ahead (`COMPACTD_PREPARE_AT_PERCENT`): compactions in
            the span that merged one, and the preparations the span's usage reports
            planned, by what became of them.
        deletions (list[DeletionCount]): Deletions in the span, by kind; none when nothing was deleted.
        since (datetime.datetime | None | Unset):
        until (datetime.datetime | None | Unset):
    """

    money: MoneyFigures
    triggers: list[TriggerStats]
    decisions: list[DecisionCount]
    rollovers: int
    declined_rollovers: int
    keep: list[KeepRate]
    preparation: PreparationFigures
    deletions: list[DeletionCount]
    since: datetime.datetime | None | Unset = UNSET
    until: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        money = self.money.to_dict()

        triggers = []
        for triggers_item_data in self.triggers:
            triggers_item = triggers_item_data.to_dict()
            triggers.append(triggers_item)

        decisions = []
        for decisions_item_data in self.decisions:
            decisions_item = decisions_item_data.to_dict()
            decisions.append(decisions_item)

        rollovers = self.rollovers

        declined_rollovers = self.declined_rollovers

        keep = []
        for keep_item_data in self.keep:
            keep_item = keep_item_data.to_dict()
            keep.append(keep_item)

        preparation = self.preparation.to_dict()

        deletions = []
        for deletions_item_data in self.deletions:
            deletions_item = deletions_item_data.to_dict()
            deletions.append(deletions_item)

        since: None | str | Unset
        if isinstance(self.since, Unset):
            since = UNSET
        elif isinstance(self.since, datetime.datetime):
            since = self.since.isoformat()
        else:
            since = self.since

        until: None | str | Unset
        if isinstance(self.until, Unset):
            until = UNSET
        elif isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "money": money,
                "triggers": triggers,
                "decisions": decisions,
                "rollovers": rollovers,
                "declined_rollovers": declined_rollovers,
                "keep": keep,
                "preparation": preparation,
                "deletions": deletions,
            }
        )
        if since is not UNSET:
            field_dict["since"] = since
        if until is not UNSET:
            field_dict["until"] = until

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.decision_count import DecisionCount  # noqa: PLC0415
        from ..models.deletion_count import DeletionCount  # noqa: PLC0415
        from ..models.keep_rate import KeepRate  # noqa: PLC0415
        from ..models.money_figures import MoneyFigures  # noqa: PLC0415
        from ..models.preparation_figures import PreparationFigures  # noqa: PLC0415
        from ..models.trigger_stats import TriggerStats  # noqa: PLC0415

        d = dict(src_dict)
        money = MoneyFigures.from_dict(d.pop("money"))

        triggers = []
        _triggers = d.pop("triggers")
        for triggers_item_data in _triggers:
            triggers_item = TriggerStats.from_dict(triggers_item_data)

            triggers.append(triggers_item)

        decisions = []
        _decisions = d.pop("decisions")
        for decisions_item_data in _decisions:
            decisions_item = DecisionCount.from_dict(decisions_item_data)

            decisions.append(decisions_item)

        rollovers = d.pop("rollovers")

        declined_rollovers = d.pop("declined_rollovers")

        keep = []
        _keep = d.pop("keep")
        for keep_item_data in _keep:
            keep_item = KeepRate.from_dict(keep_item_data)

            keep.append(keep_item)

        preparation = PreparationFigures.from_dict(d.pop("preparation"))

        deletions = []
        _deletions = d.pop("deletions")
        for deletions_item_data in _deletions:
            deletions_item = DeletionCount.from_dict(deletions_item_data)

            deletions.append(deletions_item)

        def _parse_since(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                since_type_0 = datetime.datetime.fromisoformat(data)

                return since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        since = _parse_since(d.pop("since", UNSET))

        def _parse_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_0 = datetime.datetime.fromisoformat(data)

                return until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        until = _parse_until(d.pop("until", UNSET))

        stats = cls(
            money=money,
            triggers=triggers,
            decisions=decisions,
            rollovers=rollovers,
            declined_rollovers=declined_rollovers,
            keep=keep,
            preparation=preparation,
            deletions=deletions,
            since=since,
            until=until,
        )

        stats.additional_properties = d
        return stats

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
