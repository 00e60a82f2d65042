from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.invented_name import InventedName
    from ..models.keep_counts import KeepCounts


T = TypeVar("T", bound="KeepCheckResponse")


@_attrs_define
class KeepCheckResponse:
    """
    Attributes:
        conversation_id (str):
        missing (str): What the summary left out, in the budget's tier order: the latest
            request under the pinned heading `Where things stand:`, the rest under
            `Kept word for word:`, and a last line counting what did not fit and
            naming the reads that find it; empty when the summary holds every item.
        missing_tokens (int): Its length, counted with the service's tokenizer.
        max_tokens (int): The room it was fitted to.
        keep (KeepCounts): The keep guard's figures: in all, and by kind.
        invented (list[InventedName] | None | Unset): The paths, ids, URLs and figures the summary names that appear in
            none of the conversation's stored turns (the newest 16 MiB of them),
            its keep set, summary or memory, in order: of the first 200 it names
            that the keep set, summary and memory do not hold. What the keep
            guard marks `[unverified]` in a model's summary. `null` when no turn
            of the conversation is stored to tell by.
    """

    conversation_id: str
    missing: str
    missing_tokens: int
    max_tokens: int
    keep: KeepCounts
    invented: list[InventedName] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        missing = self.missing

        missing_tokens = self.missing_tokens

        max_tokens = self.max_tokens

        keep = self.keep.to_dict()

        invented: list[dict[str, Any]] | None | Unset
        if isinstance(self.invented, Unset):
            invented = UNSET
        elif isinstance(self.invented, list):
            invented = []
            for invented_type_0_item_data in self.invented:
                invented_type_0_item = invented_type_0_item_data.to_dict()
                invented.append(invented_type_0_item)

        else:
            invented = self.invented

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversation_id": conversation_id,
                "missing": missing,
                "missing_tokens": missing_tokens,
                "max_tokens": max_tokens,
                "keep": keep,
            }
        )
        if invented is not UNSET:
            field_dict["invented"] = invented

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.invented_name import InventedName  # noqa: PLC0415
        from ..models.keep_counts import KeepCounts  # noqa: PLC0415

        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        missing = d.pop("missing")

        missing_tokens = d.pop("missing_tokens")

        max_tokens = d.pop("max_tokens")

        keep = KeepCounts.from_dict(d.pop("keep"))

        def _parse_invented(data: object) -> list[InventedName] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                invented_type_0 = []
                _invented_type_0 = data
                for invented_type_0_item_data in _invented_type_0:
                    invented_type_0_item = InventedName.from_dict(invented_type_0_item_data)

                    invented_type_0.append(invented_type_0_item)

                return invented_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InventedName] | None | Unset, data)

        invented = _parse_invented(d.pop("invented", UNSET))

        keep_check_response = cls(
            conversation_id=conversation_id,
            missing=missing,
            missing_tokens=missing_tokens,
            max_tokens=max_tokens,
            keep=keep,
            invented=invented,
        )

        keep_check_response.additional_properties = d
        return keep_check_response

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
