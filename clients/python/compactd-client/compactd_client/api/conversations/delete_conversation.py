from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.deletion import Deletion
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    lineage: bool | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["lineage"] = lineage

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/conversations/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Deletion | Problem | None:
    if response.status_code == 200:
        response_200 = Deletion.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Deletion | Problem]:
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
    lineage: bool | Unset = UNSET,
) -> Response[Deletion | Problem]:
    """Delete a conversation

     Its turns, keep set, preparations, events, the answers kept for its
    Idempotency-Keys and the text of its ledger rows go, in one transaction,
    with an audit line that records who deleted how much and none of the
    content. The ledger keeps its rows' counts, trigger and tokens, naming no
    conversation, so the fleet's figures stay right; /stats's decisions and
    rollovers the same. Conversations it handed off to or from stay, no
    longer linked to it, unless `lineage=true` deletes them too. Asked again,
    it answers `already_deleted`. Agent and admin keys only.

    Args:
        id (str):
        lineage (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Deletion | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        lineage=lineage,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    lineage: bool | Unset = UNSET,
) -> Deletion | Problem | None:
    """Delete a conversation

     Its turns, keep set, preparations, events, the answers kept for its
    Idempotency-Keys and the text of its ledger rows go, in one transaction,
    with an audit line that records who deleted how much and none of the
    content. The ledger keeps its rows' counts, trigger and tokens, naming no
    conversation, so the fleet's figures stay right; /stats's decisions and
    rollovers the same. Conversations it handed off to or from stay, no
    longer linked to it, unless `lineage=true` deletes them too. Asked again,
    it answers `already_deleted`. Agent and admin keys only.

    Args:
        id (str):
        lineage (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Deletion | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        lineage=lineage,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    lineage: bool | Unset = UNSET,
) -> Response[Deletion | Problem]:
    """Delete a conversation

     Its turns, keep set, preparations, events, the answers kept for its
    Idempotency-Keys and the text of its ledger rows go, in one transaction,
    with an audit line that records who deleted how much and none of the
    content. The ledger keeps its rows' counts, trigger and tokens, naming no
    conversation, so the fleet's figures stay right; /stats's decisions and
    rollovers the same. Conversations it handed off to or from stay, no
    longer linked to it, unless `lineage=true` deletes them too. Asked again,
    it answers `already_deleted`. Agent and admin keys only.

    Args:
        id (str):
        lineage (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Deletion | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        lineage=lineage,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    lineage: bool | Unset = UNSET,
) -> Deletion | Problem | None:
    """Delete a conversation

     Its turns, keep set, preparations, events, the answers kept for its
    Idempotency-Keys and the text of its ledger rows go, in one transaction,
    with an audit line that records who deleted how much and none of the
    content. The ledger keeps its rows' counts, trigger and tokens, naming no
    conversation, so the fleet's figures stay right; /stats's decisions and
    rollovers the same. Conversations it handed off to or from stay, no
    longer linked to it, unless `lineage=true` deletes them too. Asked again,
    it answers `already_deleted`. Agent and admin keys only.

    Args:
        id (str):
        lineage (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Deletion | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            lineage=lineage,
        )
    ).parsed
