from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.keep_item_view import KeepItemView


T = TypeVar("T", bound="KeepSetView")


@_attrs_define
class KeepSetView:
    """
    Attributes:
        conversation_id (str):
        items (list[KeepItemView]): In the order a summary takes them: by tier, newest and most often seen first.
        total (int): Items of the set (of the kind asked for), listed or not.
        truncated (bool): More items exist than `limit` listed.
    """

    conversation_id: str
    items: list[KeepItemView]
    total: int
    truncated: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        total = self.total

        truncated = self.truncated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversation_id": conversation_id,
                "items": items,
                "total": total,
                "truncated": truncated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.keep_item_view import KeepItemView  # noqa: PLC0415

        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = KeepItemView.from_dict(items_item_data)

            items.append(items_item)

        total = d.pop("total")

        truncated = d.pop("truncated")

        keep_set_view = cls(
            conversation_id=conversation_id,
            items=items,
            total=total,
            truncated=truncated,
        )

        keep_set_view.additional_properties = d
        return keep_set_view

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
