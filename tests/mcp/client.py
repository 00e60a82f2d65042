"""The official MCP Python SDK (`mcp` on PyPI) as compactd's MCP client:
lists the tools, calls each, and tries without a key and with another
tenant's. Prints one JSON object: what it saw. Run by tests/api/mcp.rs.

    COMPACTD_MCP_URL=http://127.0.0.1:8080/mcp KEY=… OTHER_KEY=… \
    CONVERSATION=… SUCCESSOR=… BOOKMARK=… python client.py
"""

import asyncio
import json
import os

from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

URL = os.environ["COMPACTD_MCP_URL"]
CONVERSATION = os.environ["CONVERSATION"]
SUCCESSOR = os.environ["SUCCESSOR"]
BOOKMARK = os.environ["BOOKMARK"]


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def session_with(key, work):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(URL, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await work(session)


async def as_the_owner(session):
    tools = await session.list_tools()
    seen = {"tools": sorted(tool.name for tool in tools.tools), "calls": {}}
    calls = {
        "search_words": ("search_history", {"conversation_id": CONVERSATION, "q": "Fridays"}),
        "search_from": ("search_history", {"conversation_id": CONVERSATION, "from": 2, "limit": 5}),
        # As a handoff quotes the bookmark: `from: "2"`.
        "search_from_quoted": ("search_history", {"conversation_id": CONVERSATION, "from": "2", "limit": 5}),
        "bad_from": ("search_history", {"conversation_id": CONVERSATION, "from": "yesterday"}),
        "context": ("get_context", {"conversation_id": CONVERSATION, "recent": 4}),
        "keep": ("get_keep_set", {"conversation_id": CONVERSATION, "kind": "prohibition"}),
        "compactions": ("get_compactions", {"conversation_id": CONVERSATION}),
        "bad_kind": ("get_keep_set", {"conversation_id": CONVERSATION, "kind": "bogus"}),
        "unknown": ("get_context", {"conversation_id": "nobody-at-all"}),
        # The conversation rolled over: the successor's agent does what its
        # handoff's last line says, with its own conversation's id.
        "after_handoff": ("search_history", {"conversation_id": SUCCESSOR, "from": BOOKMARK}),
    }
    for label, (tool, arguments) in calls.items():
        result = await session.call_tool(tool, arguments)
        seen["calls"][label] = {
            "error": bool(result.is_error),
            "body": json.loads(text_of(result)),
            "structured": result.structured_content,
        }
    return seen


async def as_another_tenant(session):
    result = await session.call_tool("search_history", {"conversation_id": CONVERSATION})
    return {"error": bool(result.is_error), "body": json.loads(text_of(result))}


def causes(err):
    """The errors under an exception group, and the HTTP statuses they carry."""
    if isinstance(err, BaseExceptionGroup):
        return [found for inner in err.exceptions for found in causes(inner)]
    response = getattr(err, "response", None)
    status = getattr(response, "status_code", None)
    return [f"{type(err).__name__}: {err}" + (f" (HTTP {status})" if status else "")]


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


async def refused(key):
    """What the SDK says when it is turned away, and the HTTP status (the SDK's
    error does not carry it, so the same request is sent once more by hand)."""
    try:
        await session_with(key, lambda session: session.list_tools())
        return None
    except Exception as err:  # the SDK raises through task groups
        said = "; ".join(causes(err))
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    headers["Accept"] = "application/json, text/event-stream"
    async with create_mcp_http_client(headers=headers) as http:
        response = await http.post(URL, json=INITIALIZE)
    return {"sdk": said, "status": response.status_code, "problem": response.json()}


async def main():
    seen = await session_with(os.environ["KEY"], as_the_owner)
    seen["other_tenant"] = await session_with(os.environ["OTHER_KEY"], as_another_tenant)
    seen["without_key"] = await refused(None)
    seen["bad_key"] = await refused("cpk_nope_nope")
    print(json.dumps(seen))


asyncio.run(main())
