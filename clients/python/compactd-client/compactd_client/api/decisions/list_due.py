import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.due_response import DueResponse
from ...models.list_due_moment import ListDueMoment
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    moment: ListDueMoment | Unset = UNSET,
    at: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_moment: str | Unset = UNSET
    if not isinstance(moment, Unset):
        json_moment = moment.value

    params["moment"] = json_moment

    json_at: str | Unset = UNSET
    if not isinstance(at, Unset):
        json_at = at.isoformat()
    params["at"] = json_at

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/due",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DueResponse | Problem | None:
    if response.status_code == 200:
        response_200 = DueResponse.from_dict(response.json())

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
) -> Response[DueResponse | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    moment: ListDueMoment | Unset = UNSET,
    at: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[DueResponse | Problem]:
    """Conversations due now

     For `idle`: whose one-hour cache is about to expire and would be compacted.
    For `next_message`: whose next user message should start a new conversation.

    Args:
        moment (ListDueMoment | Unset): The moments a caller polls for.
        at (datetime.datetime | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DueResponse | Problem]
    """

    kwargs = _get_kwargs(
        moment=moment,
        at=at,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    moment: ListDueMoment | Unset = UNSET,
    at: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> DueResponse | Problem | None:
    """Conversations due now

     For `idle`: whose one-hour cache is about to expire and would be compacted.
    For `next_message`: whose next user message should start a new conversation.

    Args:
        moment (ListDueMoment | Unset): The moments a caller polls for.
        at (datetime.datetime | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DueResponse | Problem
    """

    return sync_detailed(
        client=client,
        moment=moment,
        at=at,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    moment: ListDueMoment | Unset = UNSET,
    at: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[DueResponse | Problem]:
    """Conversations due now

     For `idle`: whose one-hour cache is about to expire and would be compacted.
    For `next_message`: whose next user message should start a new conversation.

    Args:
        moment (ListDueMoment | Unset): The moments a caller polls for.
        at (datetime.datetime | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DueResponse | Problem]
    """

    kwargs = _get_kwargs(
        moment=moment,
        at=at,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    moment: ListDueMoment | Unset = UNSET,
    at: datetime.datetime | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> DueResponse | Problem | None:
    """Conversations due now

     For `idle`: whose one-hour cache is about to expire and would be compacted.
    For `next_message`: whose next user message should start a new conversation.

    Args:
        moment (ListDueMoment | Unset): The moments a caller polls for.
        at (datetime.datetime | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DueResponse | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            moment=moment,
            at=at,
            limit=limit,
        )
    ).parsed
