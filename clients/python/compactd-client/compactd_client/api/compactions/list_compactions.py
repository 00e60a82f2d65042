import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.fleet_compactions import FleetCompactions
from ...models.list_compactions_trigger import ListCompactionsTrigger
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    trigger: ListCompactionsTrigger | Unset = UNSET,
    success: bool | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    harness: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_trigger: str | Unset = UNSET
    if not isinstance(trigger, Unset):
        json_trigger = trigger.value

    params["trigger"] = json_trigger

    params["success"] = success

    json_since: str | Unset = UNSET
    if not isinstance(since, Unset):
        json_since = since.isoformat()
    params["since"] = json_since

    json_until: str | Unset = UNSET
    if not isinstance(until, Unset):
        json_until = until.isoformat()
    params["until"] = json_until

    params["harness"] = harness

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/compactions",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> FleetCompactions | Problem | None:
    if response.status_code == 200:
        response_200 = FleetCompactions.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[FleetCompactions | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    trigger: ListCompactionsTrigger | Unset = UNSET,
    success: bool | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    harness: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[FleetCompactions | Problem]:
    """The fleet's compaction history

    Args:
        trigger (ListCompactionsTrigger | Unset): Why a compaction or rollover is due. Stable: the
            ledger stores these. `cache_cold` and `long_away` only explain a `next_message` rollover.
        success (bool | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        harness (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FleetCompactions | Problem]
    """

    kwargs = _get_kwargs(
        trigger=trigger,
        success=success,
        since=since,
        until=until,
        harness=harness,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    trigger: ListCompactionsTrigger | Unset = UNSET,
    success: bool | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    harness: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> FleetCompactions | Problem | None:
    """The fleet's compaction history

    Args:
        trigger (ListCompactionsTrigger | Unset): Why a compaction or rollover is due. Stable: the
            ledger stores these. `cache_cold` and `long_away` only explain a `next_message` rollover.
        success (bool | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        harness (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FleetCompactions | Problem
    """

    return sync_detailed(
        client=client,
        trigger=trigger,
        success=success,
        since=since,
        until=until,
        harness=harness,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    trigger: ListCompactionsTrigger | Unset = UNSET,
    success: bool | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    harness: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[FleetCompactions | Problem]:
    """The fleet's compaction history

    Args:
        trigger (ListCompactionsTrigger | Unset): Why a compaction or rollover is due. Stable: the
            ledger stores these. `cache_cold` and `long_away` only explain a `next_message` rollover.
        success (bool | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        harness (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FleetCompactions | Problem]
    """

    kwargs = _get_kwargs(
        trigger=trigger,
        success=success,
        since=since,
        until=until,
        harness=harness,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    trigger: ListCompactionsTrigger | Unset = UNSET,
    success: bool | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    harness: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> FleetCompactions | Problem | None:
    """The fleet's compaction history

    Args:
        trigger (ListCompactionsTrigger | Unset): Why a compaction or rollover is due. Stable: the
            ledger stores these. `cache_cold` and `long_away` only explain a `next_message` rollover.
        success (bool | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        harness (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FleetCompactions | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            trigger=trigger,
            success=success,
            since=since,
            until=until,
            harness=harness,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
