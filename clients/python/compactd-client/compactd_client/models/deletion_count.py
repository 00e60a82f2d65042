from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DeletionCount")


@_attrs_define
class DeletionCount:
    """The span's deletions of one kind, as their audit lines count them.

    Attributes:
        kind (str): `conversation` and `lineage` (DELETE /conversations/{id}), `tenant`
            (a purge's batches) or `retention` (`COMPACTD_RETENTION_DAYS`).
        deletions (int): Audit lines: one per request, or per batch of a purge or of retention.
        conversations (int):
        turns (int):
    """

    kind: str
    deletions: int
    conversations: int
    turns: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        deletions = self.deletions

        conversations = self.conversations

        turns = self.turns

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "deletions": deletions,
                "conversations": conversations,
                "turns": turns,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = d.pop("kind")

        deletions = d.pop("deletions")

        conversations = d.pop("conversations")

        turns = d.pop("turns")

        deletion_count = cls(
            kind=kind,
            deletions=deletions,
            conversations=conversations,
            turns=turns,
        )

        deletion_count.additional_properties = d
        return deletion_count

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
