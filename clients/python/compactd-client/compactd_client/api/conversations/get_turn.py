from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.turn_view import TurnView
from ...types import Response


def _get_kwargs(
    id: str,
    turn: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/conversations/{id}/turns/{turn}".format(
            id=quote(str(id), safe=""),
            turn=quote(str(turn), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | TurnView | None:
    if response.status_code == 200:
        response_200 = TurnView.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | TurnView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    turn: int,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | TurnView]:
    """One stored turn, whole

     What a page of turns clipped (`clipped: true`), read in full.

    Args:
        id (str):
        turn (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TurnView]
    """

    kwargs = _get_kwargs(
        id=id,
        turn=turn,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    turn: int,
    *,
    client: AuthenticatedClient,
) -> Problem | TurnView | None:
    """One stored turn, whole

     What a page of turns clipped (`clipped: true`), read in full.

    Args:
        id (str):
        turn (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TurnView
    """

    return sync_detailed(
        id=id,
        turn=turn,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    turn: int,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | TurnView]:
    """One stored turn, whole

     What a page of turns clipped (`clipped: true`), read in full.

    Args:
        id (str):
        turn (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TurnView]
    """

    kwargs = _get_kwargs(
        id=id,
        turn=turn,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    turn: int,
    *,
    client: AuthenticatedClient,
) -> Problem | TurnView | None:
    """One stored turn, whole

     What a page of turns clipped (`clipped: true`), read in full.

    Args:
        id (str):
        turn (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TurnView
    """

    return (
        await asyncio_detailed(
            id=id,
            turn=turn,
            client=client,
        )
    ).parsed
