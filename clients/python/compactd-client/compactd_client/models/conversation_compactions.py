from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.compaction import Compaction


T = TypeVar("T", bound="ConversationCompactions")


@_attrs_define
class ConversationCompactions:
    """
    Attributes:
        conversation_id (str):
        compactions (list[Compaction]): Newest first.
        next_before_seq (int | None | Unset): Pass as `before_seq` for the next page; null on the last.
    """

    conversation_id: str
    compactions: list[Compaction]
    next_before_seq: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        compactions = []
        for compactions_item_data in self.compactions:
            compactions_item = compactions_item_data.to_dict()
            compactions.append(compactions_item)

        next_before_seq: int | None | Unset
        if isinstance(self.next_before_seq, Unset):
            next_before_seq = UNSET
        else:
            next_before_seq = self.next_before_seq

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversation_id": conversation_id,
                "compactions": compactions,
            }
        )
        if next_before_seq is not UNSET:
            field_dict["next_before_seq"] = next_before_seq

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.compaction import Compaction  # noqa: PLC0415

        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        compactions = []
        _compactions = d.pop("compactions")
        for compactions_item_data in _compactions:
            compactions_item = Compaction.from_dict(compactions_item_data)

            compactions.append(compactions_item)

        def _parse_next_before_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        next_before_seq = _parse_next_before_seq(d.pop("next_before_seq", UNSET))

        conversation_compactions = cls(
            conversation_id=conversation_id,
            compactions=compactions,
            next_before_seq=next_before_seq,
        )

        conversation_compactions.additional_properties = d
        return conversation_compactions

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
