from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.deleted_counts import DeletedCounts


T = TypeVar("T", bound="Deletion")


@_attrs_define
class Deletion:
    """A deletion's answer.

    Attributes:
        deleted_ids (list[str]): The conversations deleted (with `lineage`, the whole lineage), in id
            order; empty when an earlier request deleted it.
        deleted (DeletedCounts): What a deletion took away.
        already_deleted (bool): An earlier request deleted it: nothing was left to delete.
    """

    deleted_ids: list[str]
    deleted: DeletedCounts
    already_deleted: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        deleted_ids = self.deleted_ids

        deleted = self.deleted.to_dict()

        already_deleted = self.already_deleted

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "deleted_ids": deleted_ids,
                "deleted": deleted,
                "already_deleted": already_deleted,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.deleted_counts import DeletedCounts  # noqa: PLC0415

        d = dict(src_dict)
        deleted_ids = cast(list[str], d.pop("deleted_ids"))

        deleted = DeletedCounts.from_dict(d.pop("deleted"))

        already_deleted = d.pop("already_deleted")

        deletion = cls(
            deleted_ids=deleted_ids,
            deleted=deleted,
            already_deleted=already_deleted,
        )

        deletion.additional_properties = d
        return deletion

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
