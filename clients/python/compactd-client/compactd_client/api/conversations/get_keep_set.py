from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_keep_set_kind import GetKeepSetKind
from ...models.keep_set_view import KeepSetView
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    kind: GetKeepSetKind | Unset = UNSET,
    limit: int | Unset = UNSET,
    q: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_kind: str | Unset = UNSET
    if not isinstance(kind, Unset):
        json_kind = kind.value

    params["kind"] = json_kind

    params["limit"] = limit

    params["q"] = q

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/conversations/{id}/keep".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> KeepSetView | Problem | None:
    if response.status_code == 200:
        response_200 = KeepSetView.from_dict(response.json())

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
) -> Response[KeepSetView | Problem]:
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
    kind: GetKeepSetKind | Unset = UNSET,
    limit: int | Unset = UNSET,
    q: str | Unset = UNSET,
) -> Response[KeepSetView | Problem]:
    """A conversation's keep set

     Every must-keep item extracted from its stored turns and `/summarize`
    deltas (and inherited from its predecessor), whether or not a summary
    carries it, with whether the current summary holds it word for word.

    Args:
        id (str):
        kind (GetKeepSetKind | Unset): What a must-keep item is: the latest request, a
            prohibition, a path, URL, id, command or quantity, or a file the agent changed.
        limit (int | Unset):
        q (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeepSetView | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        kind=kind,
        limit=limit,
        q=q,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    kind: GetKeepSetKind | Unset = UNSET,
    limit: int | Unset = UNSET,
    q: str | Unset = UNSET,
) -> KeepSetView | Problem | None:
    """A conversation's keep set

     Every must-keep item extracted from its stored turns and `/summarize`
    deltas (and inherited from its predecessor), whether or not a summary
    carries it, with whether the current summary holds it word for word.

    Args:
        id (str):
        kind (GetKeepSetKind | Unset): What a must-keep item is: the latest request, a
            prohibition, a path, URL, id, command or quantity, or a file the agent changed.
        limit (int | Unset):
        q (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeepSetView | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        kind=kind,
        limit=limit,
        q=q,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    kind: GetKeepSetKind | Unset = UNSET,
    limit: int | Unset = UNSET,
    q: str | Unset = UNSET,
) -> Response[KeepSetView | Problem]:
    """A conversation's keep set

     Every must-keep item extracted from its stored turns and `/summarize`
    deltas (and inherited from its predecessor), whether or not a summary
    carries it, with whether the current summary holds it word for word.

    Args:
        id (str):
        kind (GetKeepSetKind | Unset): What a must-keep item is: the latest request, a
            prohibition, a path, URL, id, command or quantity, or a file the agent changed.
        limit (int | Unset):
        q (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeepSetView | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        kind=kind,
        limit=limit,
        q=q,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    kind: GetKeepSetKind | Unset = UNSET,
    limit: int | Unset = UNSET,
    q: str | Unset = UNSET,
) -> KeepSetView | Problem | None:
    """A conversation's keep set

     Every must-keep item extracted from its stored turns and `/summarize`
    deltas (and inherited from its predecessor), whether or not a summary
    carries it, with whether the current summary holds it word for word.

    Args:
        id (str):
        kind (GetKeepSetKind | Unset): What a must-keep item is: the latest request, a
            prohibition, a path, URL, id, command or quantity, or a file the agent changed.
        limit (int | Unset):
        q (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeepSetView | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            kind=kind,
            limit=limit,
            q=q,
        )
    ).parsed
