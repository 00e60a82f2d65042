"""A LangChain 1.x agent (`create_agent`) with CompactdMiddleware, runnable
with no model and no provider key: LangChain's fake chat model answers,
reporting the token usage a real one would, and compactd decides when the
thread is compacted (the older messages replaced by its summary, the newest
kept whole, no tool call split from its result) and when it rolls over (the
thread carries on from the handoff, as the successor).

Four requests on one checkpointed thread (with `invoke`, or `ainvoke` when
ASYNC=1): a tool call, a second that takes the context past compactd's
trigger, one that rolls over, and one in the successor.

    pip install langchain==1.5.2 ./clients/python/compactd-client ./clients/python/compactd-langchain
    COMPACTD_URL=http://127.0.0.1:8080 [COMPACTD_API_KEY=…] python clients/python/langchain_agent.py

It prints a line per request and, last, a JSON line: the conversations it
went through, the compactions and rollovers, and the thread's messages after
each request (tests/api/langchain.rs checks them). It exits non-zero when the
run did not both compact and roll over.
"""

import asyncio
import json
import os
import sys
import uuid

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from compactd_client import AuthenticatedClient
from compactd_client.api.compactions import list_conversation_compactions
from compactd_langchain import CompactdMiddleware

URL = os.environ.get("COMPACTD_URL", "http://127.0.0.1:8080")
API_KEY = os.environ.get("COMPACTD_API_KEY") or None
THREAD = os.environ.get("THREAD") or f"langchain-example-{uuid.uuid4().hex[:12]}"


class FakeModel(GenericFakeChatModel):
    """LangChain's fake chat model, which create_agent may bind tools to."""

    def bind_tools(self, tools, **kwargs):
        return self


@tool
def deploy(build: int, target: str) -> str:
    """Deploy a build to an environment."""
    return f"build {build} is live on {target}.example.com (took 41s)"


@tool
def tag(version: str) -> str:
    """Tag the release."""
    return f"tagged {version} at commit 3f9c2a7e"


def answer(text="", used=0, calls=()):
    return AIMessage(
        content=text,
        tool_calls=[{"id": f"call_{name}", "name": name, "args": args} for name, args in calls],
        usage_metadata={
            "input_tokens": used - 200,
            "output_tokens": 200,
            "total_tokens": used,
            "input_token_details": {"cache_read": used // 2},
        },
        # As OpenAI's chat model names itself: compactd prices what a
        # compaction spares each call at it (COMPACTD_PRICES).
        response_metadata={"model_name": "fake-gpt"},
    )


model = FakeModel(
    messages=iter(
        [
            answer(used=6_000, calls=[("deploy", {"build": 4711, "target": "staging"})]),
            answer("Deployed build 4711 to staging.", used=7_200),
            answer(used=12_000, calls=[("tag", {"version": "v2.3.1"})]),
            answer("Tagged v2.3.1 and updated docs/release.md.", used=16_500),
            answer("CI run 88231 passed.", used=19_400),
            answer("Done.", used=4_000),
        ]
    )
)

middleware = CompactdMiddleware(
    url=URL,
    api_key=API_KEY,
    window=20_000,
    keep_recent_tokens=60,
)
agent = create_agent(model, tools=[deploy, tag], middleware=[middleware], checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": THREAD}}


def shape(message):
    kind = type(message).__name__
    source = message.additional_kwargs.get("lc_source")
    calls = [call["id"] for call in getattr(message, "tool_calls", [])]
    answers = getattr(message, "tool_call_id", None)
    text = message.content if isinstance(message.content, str) else str(message.content)
    return {"kind": kind, "source": source, "calls": calls, "answers": answers, "text": text}


REQUESTS = [
    "Deploy build 4711 to staging. Never deploy on Fridays.",
    "Now tag it v2.3.1 and update docs/release.md.",
    "Check the CI run https://ci.example.com/runs/88231.",
    "Thanks, carry on.",
]


def seen(request, state):
    messages = [shape(m) for m in state["messages"]]
    conversation = state.get("compactd_conversation_id") or THREAD
    opening = " (compactd's summary or handoff first)" if messages and messages[0]["source"] else ""
    print(f"{request!r}: the thread holds {len(messages)} messages{opening}, conversation {conversation}")
    return {"messages": messages, "conversation": state.get("compactd_conversation_id")}


async def asynchronously():
    return [seen(r, await agent.ainvoke({"messages": [{"role": "user", "content": r}]}, config)) for r in REQUESTS]


def compactions(conversations):
    """The compactions compactd wrote at its trigger, over the lineage."""
    # A service without keys ignores the token.
    client = AuthenticatedClient(base_url=URL, token=API_KEY or "open")
    count = 0
    for conversation in conversations:
        ledger = list_conversation_compactions.sync(conversation, client=client)
        count += sum(1 for row in ledger.compactions if row.success and row.trigger.value == "threshold_exceeded")
    return count


if os.environ.get("ASYNC") == "1":
    turns = asyncio.run(asynchronously())
else:
    turns = [seen(r, agent.invoke({"messages": [{"role": "user", "content": r}]}, config)) for r in REQUESTS]
conversations = [THREAD]
for turn in turns:
    if turn["conversation"] and turn["conversation"] not in conversations:
        conversations.append(turn["conversation"])
compacted = compactions(conversations)
rollovers = len(conversations) - 1
print(json.dumps({"conversations": conversations, "compactions": compacted, "rollovers": rollovers, "turns": turns}))
if compacted == 0 or rollovers == 0:
    sys.exit("the run did not both compact and roll over")
