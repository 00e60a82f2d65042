from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.turn_ended_request import TurnEndedRequest
from ...models.turn_ended_response import TurnEndedResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: TurnEndedRequest,
    idempotency_key: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    if not isinstance(prefer, Unset):
        headers["Prefer"] = prefer

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/turn-ended",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Problem | TurnEndedResponse | None:
    if response.status_code == 200:
        response_200 = TurnEndedResponse.from_dict(response.json())

        return response_200

    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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
) -> Response[Any | Problem | TurnEndedResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: TurnEndedRequest,
    idempotency_key: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,
) -> Response[Any | Problem | TurnEndedResponse]:
    """End a turn

     Counts the turn and its user messages, clears the quiet-spell flags, and
    stores `user`/`assistant` as the conversation's next turn when given.

    Args:
        idempotency_key (None | str | Unset):
        prefer (None | str | Unset):
        body (TurnEndedRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | TurnEndedResponse]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
        prefer=prefer,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: TurnEndedRequest,
    idempotency_key: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,
) -> Any | Problem | TurnEndedResponse | None:
    """End a turn

     Counts the turn and its user messages, clears the quiet-spell flags, and
    stores `user`/`assistant` as the conversation's next turn when given.

    Args:
        idempotency_key (None | str | Unset):
        prefer (None | str | Unset):
        body (TurnEndedRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | TurnEndedResponse
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
        prefer=prefer,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: TurnEndedRequest,
    idempotency_key: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,
) -> Response[Any | Problem | TurnEndedResponse]:
    """End a turn

     Counts the turn and its user messages, clears the quiet-spell flags, and
    stores `user`/`assistant` as the conversation's next turn when given.

    Args:
        idempotency_key (None | str | Unset):
        prefer (None | str | Unset):
        body (TurnEndedRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | TurnEndedResponse]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
        prefer=prefer,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: TurnEndedRequest,
    idempotency_key: None | str | Unset = UNSET,
    prefer: None | str | Unset = UNSET,
) -> Any | Problem | TurnEndedResponse | None:
    """End a turn

     Counts the turn and its user messages, clears the quiet-spell flags, and
    stores `user`/`assistant` as the conversation's next turn when given.

    Args:
        idempotency_key (None | str | Unset):
        prefer (None | str | Unset):
        body (TurnEndedRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | TurnEndedResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
            prefer=prefer,
        )
    ).parsed
