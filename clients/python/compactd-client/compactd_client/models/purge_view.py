from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PurgeView")


@_attrs_define
class PurgeView:
    """A tenant's purge.

    Attributes:
        id (int):
        tenant (str):
        requested_at (datetime.datetime):
        requested_by (str): `api` or `command line`.
        status (str): `running` until every conversation the tenant had when it was asked
            for is deleted, then `finished`. Example: running.
        batches (int): Batches deleted so far (one audit line each).
        conversations (int): Conversations deleted so far.
        turns (int):
        finished_at (datetime.datetime | None | Unset):
    """

    id: int
    tenant: str
    requested_at: datetime.datetime
    requested_by: str
    status: str
    batches: int
    conversations: int
    turns: int
    finished_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        tenant = self.tenant

        requested_at = self.requested_at.isoformat()

        requested_by = self.requested_by

        status = self.status

        batches = self.batches

        conversations = self.conversations

        turns = self.turns

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "tenant": tenant,
                "requested_at": requested_at,
                "requested_by": requested_by,
                "status": status,
                "batches": batches,
                "conversations": conversations,
                "turns": turns,
            }
        )
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        tenant = d.pop("tenant")

        requested_at = datetime.datetime.fromisoformat(d.pop("requested_at"))

        requested_by = d.pop("requested_by")

        status = d.pop("status")

        batches = d.pop("batches")

        conversations = d.pop("conversations")

        turns = d.pop("turns")

        def _parse_finished_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))

        purge_view = cls(
            id=id,
            tenant=tenant,
            requested_at=requested_at,
            requested_by=requested_by,
            status=status,
            batches=batches,
            conversations=conversations,
            turns=turns,
            finished_at=finished_at,
        )

        purge_view.additional_properties = d
        return purge_view

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
