from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.keep_check_request import KeepCheckRequest
from ...models.keep_check_response import KeepCheckResponse
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: KeepCheckRequest,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/conversations/{id}/keep/check".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> KeepCheckResponse | Problem | None:
    if response.status_code == 200:
        response_200 = KeepCheckResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 410:
        response_410 = Problem.from_dict(response.json())

        return response_410

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

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
) -> Response[KeepCheckResponse | Problem]:
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
    body: KeepCheckRequest,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[KeepCheckResponse | Problem]:
    """Check a summary against the keep set

     For a harness that compacts by itself (Claude Code, Codex): which of the
    conversation's must-keep items its summary does not hold word for word,
    written as the keep guard appends them and fitted to `max_tokens`, so the
    harness can give them back to its agent; and the paths, ids, URLs and
    figures it names that the conversation never did (`invented`), for the
    harness to mark unverified. Reads only; nothing is saved.
    A check reads the summary once however many items the keep set holds; a
    few run at once in a process and a tenant's take their turn one at a
    time, so one waiting past the request's deadline is answered 503.

    Args:
        id (str):
        idempotency_key (None | str | Unset):
        body (KeepCheckRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeepCheckResponse | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    body: KeepCheckRequest,
    idempotency_key: None | str | Unset = UNSET,
) -> KeepCheckResponse | Problem | None:
    """Check a summary against the keep set

     For a harness that compacts by itself (Claude Code, Codex): which of the
    conversation's must-keep items its summary does not hold word for word,
    written as the keep guard appends them and fitted to `max_tokens`, so the
    harness can give them back to its agent; and the paths, ids, URLs and
    figures it names that the conversation never did (`invented`), for the
    harness to mark unverified. Reads only; nothing is saved.
    A check reads the summary once however many items the keep set holds; a
    few run at once in a process and a tenant's take their turn one at a
    time, so one waiting past the request's deadline is answered 503.

    Args:
        id (str):
        idempotency_key (None | str | Unset):
        body (KeepCheckRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeepCheckResponse | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: KeepCheckRequest,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[KeepCheckResponse | Problem]:
    """Check a summary against the keep set

     For a harness that compacts by itself (Claude Code, Codex): which of the
    conversation's must-keep items its summary does not hold word for word,
    written as the keep guard appends them and fitted to `max_tokens`, so the
    harness can give them back to its agent; and the paths, ids, URLs and
    figures it names that the conversation never did (`invented`), for the
    harness to mark unverified. Reads only; nothing is saved.
    A check reads the summary once however many items the keep set holds; a
    few run at once in a process and a tenant's take their turn one at a
    time, so one waiting past the request's deadline is answered 503.

    Args:
        id (str):
        idempotency_key (None | str | Unset):
        body (KeepCheckRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeepCheckResponse | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    body: KeepCheckRequest,
    idempotency_key: None | str | Unset = UNSET,
) -> KeepCheckResponse | Problem | None:
    """Check a summary against the keep set

     For a harness that compacts by itself (Claude Code, Codex): which of the
    conversation's must-keep items its summary does not hold word for word,
    written as the keep guard appends them and fitted to `max_tokens`, so the
    harness can give them back to its agent; and the paths, ids, URLs and
    figures it names that the conversation never did (`invented`), for the
    harness to mark unverified. Reads only; nothing is saved.
    A check reads the summary once however many items the keep set holds; a
    few run at once in a process and a tenant's take their turn one at a
    time, so one waiting past the request's deadline is answered 503.

    Args:
        id (str):
        idempotency_key (None | str | Unset):
        body (KeepCheckRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeepCheckResponse | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
