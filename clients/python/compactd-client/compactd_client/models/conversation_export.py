from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.conversation_export_compactions_item import ConversationExportCompactionsItem
    from ..models.conversation_export_conversation import ConversationExportConversation
    from ..models.conversation_export_events_item import ConversationExportEventsItem
    from ..models.conversation_export_keep_items_item import ConversationExportKeepItemsItem
    from ..models.conversation_export_preparations_item import ConversationExportPreparationsItem
    from ..models.conversation_export_turns_item import ConversationExportTurnsItem


T = TypeVar("T", bound="ConversationExport")


@_attrs_define
class ConversationExport:
    """The export's shape: each row as Postgres stores it (every column, by its
    name), so nothing stored is left out and later columns appear as added.

        Attributes:
            format_ (str): `compactd-export/1`.
            tenant (str):
            conversation_id (str):
            exported_at (datetime.datetime):
            conversation (ConversationExportConversation): Its row: the state, summary, memory, critical turns, lineage.
            turns (list[ConversationExportTurnsItem]): Every stored turn, oldest first, its texts whole.
            events (list[ConversationExportEventsItem]): Its event log, oldest first.
            compactions (list[ConversationExportCompactionsItem]): Its ledger rows, with the summaries they wrote.
            preparations (list[ConversationExportPreparationsItem]): The summaries prepared ahead for it.
            keep_items (list[ConversationExportKeepItemsItem]): Its keep set.
    """

    format_: str
    tenant: str
    conversation_id: str
    exported_at: datetime.datetime
    conversation: ConversationExportConversation
    turns: list[ConversationExportTurnsItem]
    events: list[ConversationExportEventsItem]
    compactions: list[ConversationExportCompactionsItem]
    preparations: list[ConversationExportPreparationsItem]
    keep_items: list[ConversationExportKeepItemsItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        format_ = self.format_

        tenant = self.tenant

        conversation_id = self.conversation_id

        exported_at = self.exported_at.isoformat()

        conversation = self.conversation.to_dict()

        turns = []
        for turns_item_data in self.turns:
            turns_item = turns_item_data.to_dict()
            turns.append(turns_item)

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.to_dict()
            events.append(events_item)

        compactions = []
        for compactions_item_data in self.compactions:
            compactions_item = compactions_item_data.to_dict()
            compactions.append(compactions_item)

        preparations = []
        for preparations_item_data in self.preparations:
            preparations_item = preparations_item_data.to_dict()
            preparations.append(preparations_item)

        keep_items = []
        for keep_items_item_data in self.keep_items:
            keep_items_item = keep_items_item_data.to_dict()
            keep_items.append(keep_items_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "format": format_,
                "tenant": tenant,
                "conversation_id": conversation_id,
                "exported_at": exported_at,
                "conversation": conversation,
                "turns": turns,
                "events": events,
                "compactions": compactions,
                "preparations": preparations,
                "keep_items": keep_items,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.conversation_export_compactions_item import ConversationExportCompactionsItem  # noqa: PLC0415
        from ..models.conversation_export_conversation import ConversationExportConversation  # noqa: PLC0415
        from ..models.conversation_export_events_item import ConversationExportEventsItem  # noqa: PLC0415
        from ..models.conversation_export_keep_items_item import ConversationExportKeepItemsItem  # noqa: PLC0415
        from ..models.conversation_export_preparations_item import ConversationExportPreparationsItem  # noqa: PLC0415
        from ..models.conversation_export_turns_item import ConversationExportTurnsItem  # noqa: PLC0415

        d = dict(src_dict)
        format_ = d.pop("format")

        tenant = d.pop("tenant")

        conversation_id = d.pop("conversation_id")

        exported_at = datetime.datetime.fromisoformat(d.pop("exported_at"))

        conversation = ConversationExportConversation.from_dict(d.pop("conversation"))

        turns = []
        _turns = d.pop("turns")
        for turns_item_data in _turns:
            turns_item = ConversationExportTurnsItem.from_dict(turns_item_data)

            turns.append(turns_item)

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = ConversationExportEventsItem.from_dict(events_item_data)

            events.append(events_item)

        compactions = []
        _compactions = d.pop("compactions")
        for compactions_item_data in _compactions:
            compactions_item = ConversationExportCompactionsItem.from_dict(compactions_item_data)

            compactions.append(compactions_item)

        preparations = []
        _preparations = d.pop("preparations")
        for preparations_item_data in _preparations:
            preparations_item = ConversationExportPreparationsItem.from_dict(preparations_item_data)

            preparations.append(preparations_item)

        keep_items = []
        _keep_items = d.pop("keep_items")
        for keep_items_item_data in _keep_items:
            keep_items_item = ConversationExportKeepItemsItem.from_dict(keep_items_item_data)

            keep_items.append(keep_items_item)

        conversation_export = cls(
            format_=format_,
            tenant=tenant,
            conversation_id=conversation_id,
            exported_at=exported_at,
            conversation=conversation,
            turns=turns,
            events=events,
            compactions=compactions,
            preparations=preparations,
            keep_items=keep_items,
        )

        conversation_export.additional_properties = d
        return conversation_export

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
