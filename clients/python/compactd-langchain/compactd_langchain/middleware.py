"""CompactdMiddleware: an `AgentMiddleware` that lets compactd decide when a
LangChain agent's conversation is compacted or rolled over, and write what
replaces it.

- After each model call it reports the usage the model answered (`/usage`).
- At the end of each turn (the agent's run) it stores the turn
  (`/turn-ended`) and asks what to do (`/decide`):
  - `compact`: the messages since the last compaction go to `/summarize`,
    which keeps the newest ones (about `keep_recent_tokens`) whole, never
    splitting a tool call from its result; the older ones are replaced by
    compactd's summary;
  - `rollover`: `/handoff` renders the text that starts the successor
    conversation; the thread carries on from it alone, as the successor.

compactd's conversation id is the thread's (`configurable.thread_id`), or
`conversation_id` when given; after a rollover it is the successor's, kept
in the state (`compactd_conversation_id`). A conversation that `/decide`
finds rolled over (its handoff's answer was lost, or another agent rolled
it over) names its successor: the thread carries on there, from the
handoff, as if it had rolled over itself.

It fails open: compactd down, slower than its timeout or refusing (401,
429, 5xx, an answer it cannot read) never fails the agent. The reports
(`/usage`, `/turn-ended`, `/decide`) have `timeout` (2 s); the calls that
write a summary or a handoff (`/summarize`, `/handoff`) have
`summarize_timeout` (90 s: a model upstream takes tens of seconds to write
a summary). The failure is logged once (a warning on the
`compactd_langchain` logger, again only after compactd answered in
between), the thread stays as it is (no compaction, no rollover), and the
next model call or turn tries again. The model's own errors are the
agent's, as without the middleware.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any, NotRequired

import httpx

from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from compactd_client import AuthenticatedClient
from compactd_client.api.compactions import handoff, summarize
from compactd_client.api.decisions import decide
from compactd_client.api.reports import end_turn, record_usage
from compactd_client.models import (
    DecideRequest,
    DecisionKind,
    HandoffRequest,
    Problem,
    Role,
    SummarizeRequest,
    TranscriptMessage,
    TranscriptToolCall,
    TurnEndedRequest,
    UsageRequest,
)
from compactd_client.types import Unset

#: Marks the messages the middleware wrote (a summary, a handoff), so they
#: are not sent back to compactd as if the user had said them.
SOURCE = "compactd"

logger = logging.getLogger("compactd_langchain")


class CompactdState(AgentState):
    """The agent's state, with compactd's conversation once it rolled over."""

    compactd_conversation_id: NotRequired[str]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text", ""))
    return "\n".join(parts)


def _ours(message: AnyMessage) -> bool:
    return message.additional_kwargs.get("lc_source") == SOURCE


# The state a report answers is not read here: no body (RFC 7240).
RETURN_MINIMAL = "return=minimal"

#: The calls that write a summary or a handoff: `summarize_timeout` bounds them.
WRITING = ("/summarize", "/handoff")


def _successor(decided: Any) -> str | None:
    """The successor a `/decide` answer names: the conversation rolled over
    (SPEC §3: it answers `keep` with `successor_id`; its state names it too)."""
    named = decided.additional_properties.get("successor_id")
    state = decided.state
    if not named and state is not None and not isinstance(state, Unset):
        named = state.successor_id
    return named if isinstance(named, str) and named else None


def _model_of(answer: AIMessage) -> str | None:
    """The model that answered, as its provider names it (`model_name` from
    OpenAI's, `model` from Anthropic's): what compactd prices the tokens a
    compaction spares each call at."""
    metadata = getattr(answer, "response_metadata", None) or {}
    name = metadata.get("model_name") or metadata.get("model")
    return name if isinstance(name, str) and name and len(name) <= 200 and not any(c.isspace() for c in name) else None


def _recorded(response: Any) -> None:
    """A report sent with `Prefer: return=minimal` was recorded (204), or raise."""
    if response.status_code >= 300:
        _answered(response.parsed)  # raises, with the problem when there is one
        raise RuntimeError(f"compactd answered {response.status_code}")


def _answered(reply: Any) -> Any:
    if isinstance(reply, Problem):
        raise RuntimeError(f"compactd said {reply.status} {reply.title}: {reply.detail}")
    if reply is None:
        raise RuntimeError("compactd answered with an undocumented status")
    return reply


def _transcript(message: AnyMessage) -> TranscriptMessage | None:
    """A message in compactd's chat shape; `None` for what it does not take."""
    if isinstance(message, HumanMessage):
        return TranscriptMessage(role=Role.USER, content=_text(message.content))
    if isinstance(message, AIMessage):
        calls = [
            TranscriptToolCall(id=call.get("id") or "", name=call["name"], arguments=json.dumps(call.get("args") or {}))
            for call in message.tool_calls
        ]
        return TranscriptMessage(role=Role.ASSISTANT, content=_text(message.content), tool_calls=calls or None)
    if isinstance(message, ToolMessage):
        return TranscriptMessage(role=Role.TOOL, content=_text(message.content), tool_call_id=message.tool_call_id)
    if isinstance(message, SystemMessage):
        return TranscriptMessage(role=Role.SYSTEM, content=_text(message.content))
    return None


class CompactdMiddleware(AgentMiddleware[CompactdState]):
    """compactd decides; the agent's messages are compacted or rolled over."""

    state_schema = CompactdState

    def __init__(
        self,
        *,
        url: str = "http://127.0.0.1:8080",
        api_key: str | None = None,
        conversation_id: str | None = None,
        window: int | None = None,
        keep_recent_tokens: int = 2_000,
        timeout: float = 2.0,
        summarize_timeout: float = 90.0,
        client: AuthenticatedClient | None = None,
    ) -> None:
        """`window`: the model's context window, when compactd should know it
        (its triggers are fractions of it). `keep_recent_tokens`: about how
        much of the newest messages a compaction keeps whole. `timeout`: the
        seconds a report (`/usage`, `/turn-ended`, `/decide`) may take before
        the agent goes on without it. `summarize_timeout`: the seconds a call
        that writes a summary or a handoff (`/summarize`, `/handoff`) may
        take before the thread goes on as it is; the default, 90, is past
        compactd's own `/summarize` deadline (`COMPACTD_LLM_DEADLINE_SECS` +
        15 s, 75 s by default), so compactd answers first, even when it gives
        up on its upstream. Connecting is bounded by `timeout` all the same.
        A `client` given is used as it is, with its own timeout, for every
        call."""
        super().__init__()
        # A service without keys runs open and ignores the token.
        token = api_key or "open"
        self.client = client or AuthenticatedClient(base_url=url, token=token, timeout=httpx.Timeout(timeout))
        # Its own client: a summary's wait, and its own connections.
        self.writer = client or AuthenticatedClient(
            base_url=url, token=token, timeout=httpx.Timeout(summarize_timeout, connect=timeout)
        )
        self.conversation_id = conversation_id
        self.window = window
        self.keep_recent_tokens = keep_recent_tokens
        self.timeout = timeout
        self.summarize_timeout = summarize_timeout
        self._url = url if client is None else getattr(client, "_base_url", url)
        self._used: dict[str, int] = {}
        # An outage is logged once: set at its first failure, cleared when compactd answers.
        self._failing = False
        self._failing_lock = threading.Lock()

    # -- failing open -------------------------------------------------------

    def _answered_again(self) -> None:
        with self._failing_lock:
            self._failing = False

    def _failed_open(self, err: Exception) -> None:
        """A call to compactd failed: the agent goes on; logged once an outage."""
        with self._failing_lock:
            if self._failing:
                return
            self._failing = True
        if isinstance(err, httpx.TimeoutException):
            what = f"no answer within {self._waited(err):g} s"
        else:
            what = f"{type(err).__name__}: {err}"
        logger.warning(
            "compactd (%s) failed: %s. The agent goes on with its messages as they are; "
            "each model call tries compactd again. Not logged again until compactd has answered.",
            self._url,
            what,
        )

    def _waited(self, err: httpx.TimeoutException) -> float:
        """How long the call that timed out had: a summary's or a handoff's, or a report's."""
        try:
            path = err.request.url.path
        except RuntimeError:  # no request attached
            return self.timeout
        return self.summarize_timeout if path in WRITING else self.timeout

    # -- which conversation ------------------------------------------------

    def _conversation(self, state: CompactdState) -> str:
        if state.get("compactd_conversation_id"):
            return state["compactd_conversation_id"]
        if self.conversation_id:
            return self.conversation_id
        from langgraph.config import get_config

        thread = (get_config().get("configurable") or {}).get("thread_id")
        if not thread:
            raise ValueError("CompactdMiddleware needs a conversation_id or a thread_id in the run's config")
        return str(thread)

    # -- after each model call: the usage ---------------------------------

    def after_model(self, state: CompactdState, runtime: Any) -> dict[str, Any] | None:
        answer = state["messages"][-1] if state["messages"] else None
        usage = getattr(answer, "usage_metadata", None) if isinstance(answer, AIMessage) else None
        if not usage:
            return None
        conversation = self._conversation(state)
        details = usage.get("input_token_details") or {}
        used = usage.get("total_tokens") or usage["input_tokens"] + usage["output_tokens"]
        self._used[conversation] = used
        report = UsageRequest(
            conversation_id=conversation,
            used=used,
            input_=usage["input_tokens"],
            output=usage["output_tokens"],
        )
        if self.window:
            report.size = self.window
        if details.get("cache_read") is not None:
            report.cached_read = details["cache_read"]
        if details.get("cache_creation") is not None:
            report.cache_written = details["cache_creation"]
        model = _model_of(answer)
        if model:
            report.model = model
        try:
            _recorded(record_usage.sync_detailed(client=self.client, body=report, prefer=RETURN_MINIMAL))
        except Exception as err:  # compactd's failure, never the agent's
            self._failed_open(err)
            return None
        self._answered_again()
        return None

    async def aafter_model(self, state: CompactdState, runtime: Any) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.after_model, state, runtime)

    # -- at the end of each turn: store it, ask, act ------------------------

    def after_agent(self, state: CompactdState, runtime: Any) -> dict[str, Any] | None:
        messages = state["messages"]
        conversation = self._conversation(state)
        try:
            update = self._end_turn(conversation, messages)
        except Exception as err:  # compactd's failure: the thread stays as it is
            self._failed_open(err)
            return None
        self._answered_again()
        return update

    def _end_turn(self, conversation: str, messages: list[AnyMessage]) -> dict[str, Any] | None:
        user = next((m for m in reversed(messages) if isinstance(m, HumanMessage) and not _ours(m)), None)
        reply = next((m for m in reversed(messages) if isinstance(m, AIMessage) and _text(m.content)), None)
        turn = TurnEndedRequest(conversation_id=conversation)
        if user is not None:
            turn.user = _text(user.content)
        if reply is not None:
            turn.assistant = _text(reply.content)
        _recorded(end_turn.sync_detailed(client=self.client, body=turn, prefer=RETURN_MINIMAL))
        decision = _answered(decide.sync(client=self.client, body=DecideRequest(conversation_id=conversation)))
        successor = _successor(decision)
        if successor is not None and successor != conversation:
            # Rolled over already: a handoff whose answer was lost (a timeout,
            # a connection cut), or another agent on the conversation.
            return self._carry_on(conversation, successor, messages)
        if decision.decision == DecisionKind.COMPACT:
            return self._compact(conversation, messages)
        if decision.decision == DecisionKind.ROLLOVER:
            return self._roll_over(conversation)
        return None

    async def aafter_agent(self, state: CompactdState, runtime: Any) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.after_agent, state, runtime)

    def _compact(self, conversation: str, messages: list[AnyMessage]) -> dict[str, Any] | None:
        # What compactd has not summarized yet: everything but the summary it wrote.
        sent: list[tuple[int, TranscriptMessage]] = []
        for at, message in enumerate(messages):
            shaped = None if _ours(message) else _transcript(message)
            if shaped is not None:
                sent.append((at, shaped))
        if not sent:
            return None
        request = SummarizeRequest(
            conversation_id=conversation,
            messages=[shaped for _, shaped in sent],
            keep_recent_tokens=self.keep_recent_tokens,
        )
        if conversation in self._used:
            request.tokens_before = self._used[conversation]
        done = _answered(summarize.sync(client=self.writer, body=request))
        if not done.success or not done.summary:
            # compactd kept the anchor; the agent carries on with all it has.
            return None
        kept_from = done.compaction.kept_from
        first_kept = sent[kept_from][0] if isinstance(kept_from, int) and kept_from < len(sent) else len(messages)
        summary = HumanMessage(
            content=f"Here is a summary of the conversation to date:\n\n{done.summary}",
            additional_kwargs={"lc_source": SOURCE},
        )
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), summary, *messages[first_kept:]]}

    def _roll_over(self, conversation: str) -> dict[str, Any]:
        started = _answered(handoff.sync(client=self.writer, body=HandoffRequest(conversation_id=conversation)))
        opening = HumanMessage(content=started.text, additional_kwargs={"lc_source": SOURCE})
        return {
            "messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), opening],
            "compactd_conversation_id": started.successor_id,
        }

    def _carry_on(self, conversation: str, successor: str, messages: list[AnyMessage]) -> dict[str, Any]:
        """The thread of a conversation that rolled over without its hearing
        so carries on in the successor: from the handoff the rollover wrote
        (a second `/handoff` naming the successor answers the first's text;
        it never forks), then this turn, from its request on."""
        request = HandoffRequest(conversation_id=conversation, successor_id=successor)
        started = _answered(handoff.sync(client=self.writer, body=request))
        opening = HumanMessage(content=started.text, additional_kwargs={"lc_source": SOURCE})
        requests = [at for at, m in enumerate(messages) if isinstance(m, HumanMessage) and not _ours(m)]
        asked = requests[-1] if requests else len(messages)
        return {
            "messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), opening, *messages[asked:]],
            "compactd_conversation_id": started.successor_id or successor,
        }
