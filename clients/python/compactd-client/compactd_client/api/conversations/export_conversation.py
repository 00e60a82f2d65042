from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.conversation_export import ConversationExport
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/conversations/{id}/export".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ConversationExport | Problem | None:
    if response.status_code == 200:
        response_200 = ConversationExport.from_dict(response.json())

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ConversationExport | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ConversationExport | Problem]:
    """Export a conversation

     Everything stored about it, as one JSON document read from one snapshot:
    its row, every turn (texts whole), its events, ledger rows with their
    summaries, preparations and keep set — what a user asks for before
    deleting. Streamed as it is read, in pages of at most 1 MiB, so a long
    conversation takes no more memory than a page or its longest turn; a
    document cut off mid-way (the database failed, the reader took nothing
    for 30 s, the export passed its deadline, the service stopped) is not
    valid JSON and its connection is closed before its end, never a
    whole-looking one. A few run at once per process and one per tenant, on
    database connections of their own.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConversationExport | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
) -> ConversationExport | Problem | None:
    """Export a conversation

     Everything stored about it, as one JSON document read from one snapshot:
    its row, every turn (texts whole), its events, ledger rows with their
    summaries, preparations and keep set — what a user asks for before
    deleting. Streamed as it is read, in pages of at most 1 MiB, so a long
    conversation takes no more memory than a page or its longest turn; a
    document cut off mid-way (the database failed, the reader took nothing
    for 30 s, the export passed its deadline, the service stopped) is not
    valid JSON and its connection is closed before its end, never a
    whole-looking one. A few run at once per process and one per tenant, on
    database connections of their own.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConversationExport | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ConversationExport | Problem]:
    """Export a conversation

     Everything stored about it, as one JSON document read from one snapshot:
    its row, every turn (texts whole), its events, ledger rows with their
    summaries, preparations and keep set — what a user asks for before
    deleting. Streamed as it is read, in pages of at most 1 MiB, so a long
    conversation takes no more memory than a page or its longest turn; a
    document cut off mid-way (the database failed, the reader took nothing
    for 30 s, the export passed its deadline, the service stopped) is not
    valid JSON and its connection is closed before its end, never a
    whole-looking one. A few run at once per process and one per tenant, on
    database connections of their own.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConversationExport | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
) -> ConversationExport | Problem | None:
    """Export a conversation

     Everything stored about it, as one JSON document read from one snapshot:
    its row, every turn (texts whole), its events, ledger rows with their
    summaries, preparations and keep set — what a user asks for before
    deleting. Streamed as it is read, in pages of at most 1 MiB, so a long
    conversation takes no more memory than a page or its longest turn; a
    document cut off mid-way (the database failed, the reader took nothing
    for 30 s, the export passed its deadline, the service stopped) is not
    valid JSON and its connection is closed before its end, never a
    whole-looking one. A few run at once per process and one per tenant, on
    database connections of their own.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConversationExport | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
