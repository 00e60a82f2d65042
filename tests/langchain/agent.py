"""A LangChain 1.x agent (`create_agent`) with CompactdMiddleware, on
LangChain's fake chat model reporting token usage, against a live compactd.
Four turns on one thread (with `invoke`, or `ainvoke` when ASYNC=1): a tool call, a second tool call that takes the
context past compactd's trigger, and one more. Prints one JSON object: the
thread's messages after each turn and compactd's conversation. Run by
tests/api/langchain.rs.

    COMPACTD_URL=http://127.0.0.1:8080 THREAD=… python agent.py
"""

import asyncio
import json
import os

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from compactd_langchain import CompactdMiddleware


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
    url=os.environ["COMPACTD_URL"],
    api_key=os.environ.get("COMPACTD_API_KEY"),
    window=20_000,
    keep_recent_tokens=60,
)
agent = create_agent(model, tools=[deploy, tag], middleware=[middleware], checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": os.environ["THREAD"]}}


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


def seen(state):
    return {"messages": [shape(m) for m in state["messages"]], "conversation": state.get("compactd_conversation_id")}


async def asynchronously():
    return [seen(await agent.ainvoke({"messages": [{"role": "user", "content": r}]}, config)) for r in REQUESTS]


if os.environ.get("ASYNC") == "1":
    turns = asyncio.run(asynchronously())
else:
    turns = [seen(agent.invoke({"messages": [{"role": "user", "content": r}]}, config)) for r in REQUESTS]
print(json.dumps({"turns": turns}))
