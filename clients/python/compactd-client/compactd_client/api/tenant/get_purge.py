from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.purge_view import PurgeView
from ...types import Response


def _get_kwargs(
    tenant: str,
    id: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/tenants/{tenant}/purges/{id}".format(
            tenant=quote(str(tenant), safe=""),
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | PurgeView | None:
    if response.status_code == 200:
        response_200 = PurgeView.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | PurgeView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    tenant: str,
    id: int,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | PurgeView]:
    """Follow a purge

    Args:
        tenant (str):
        id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | PurgeView]
    """

    kwargs = _get_kwargs(
        tenant=tenant,
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    tenant: str,
    id: int,
    *,
    client: AuthenticatedClient,
) -> Problem | PurgeView | None:
    """Follow a purge

    Args:
        tenant (str):
        id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | PurgeView
    """

    return sync_detailed(
        tenant=tenant,
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    tenant: str,
    id: int,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | PurgeView]:
    """Follow a purge

    Args:
        tenant (str):
        id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | PurgeView]
    """

    kwargs = _get_kwargs(
        tenant=tenant,
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    tenant: str,
    id: int,
    *,
    client: AuthenticatedClient,
) -> Problem | PurgeView | None:
    """Follow a purge

    Args:
        tenant (str):
        id (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | PurgeView
    """

    return (
        await asyncio_detailed(
            tenant=tenant,
            id=id,
            client=client,
        )
    ).parsed
