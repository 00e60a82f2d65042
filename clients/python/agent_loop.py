"""An agent's loop with compactd, through the generated Python client.

After every model call the agent reports how much of the context window is in
use; after every turn it stores the turn and asks what to do. `compact`: compactd
writes the summary (from the stored turns) and the agent carries on from it.
`rollover`: compactd renders the handoff that starts a new conversation, and the
agent carries on there.

The model is simulated (each turn adds about 4,000 tokens to a 20,000-token
window) so that a short run shows every branch: it compacts, compacts again too
soon and is told to roll over, then compacts in the successor.

    pip install ./clients/python/compactd-client
    COMPACTD_URL=http://127.0.0.1:8080 COMPACTD_API_KEY=cpk_... python clients/python/agent_loop.py

It prints one line per turn and, last, a JSON line with what happened; it exits
non-zero when the run did not show both a compaction and a rollover.
"""

import json
import os
import sys
import uuid

from compactd_client import AuthenticatedClient
from compactd_client.api.compactions import handoff, summarize
from compactd_client.api.decisions import decide
from compactd_client.api.reports import end_turn, record_usage
from compactd_client.models import (
    DecideRequest,
    DecisionKind,
    HandoffRequest,
    Problem,
    SummarizeRequest,
    TurnEndedRequest,
    UsageRequest,
)

WINDOW = 20_000
TOKENS_PER_TURN = 4_000
SYSTEM_PROMPT_TOKENS = 2_000
HANDOFF_TOKENS = 1_000
TURNS = 12


def answered(reply):
    """The parsed answer, or an exception carrying the problem compactd returned."""
    if isinstance(reply, Problem):
        raise RuntimeError(f"compactd said {reply.status} {reply.title}: {reply.detail}")
    if reply is None:
        raise RuntimeError("compactd answered with an undocumented status")
    return reply


def main() -> int:
    client = AuthenticatedClient(
        base_url=os.environ.get("COMPACTD_URL", "http://127.0.0.1:8080"),
        # A service without keys runs open and ignores the token.
        token=os.environ.get("COMPACTD_API_KEY", "open"),
        raise_on_unexpected_status=True,
    )
    conversation = os.environ.get("CONVERSATION_ID") or f"py-agent-{uuid.uuid4()}"
    conversations, compactions, rollovers = [conversation], 0, 0
    context = SYSTEM_PROMPT_TOKENS

    with client:
        for turn in range(1, TURNS + 1):
            user = f"Step {turn}: add the index idx_orders_{turn} to orders and report its size."
            context += TOKENS_PER_TURN  # what the provider's usage says this call used
            assistant = f"Created idx_orders_{turn}; the context now holds {context} tokens."

            answered(
                record_usage.sync(
                    client=client,
                    body=UsageRequest(
                        conversation_id=conversation,
                        used=context,
                        size=WINDOW,
                        input_=context,
                        output=300,
                    ),
                )
            )
            answered(
                end_turn.sync(
                    client=client,
                    body=TurnEndedRequest(conversation_id=conversation, user=user, assistant=assistant),
                )
            )
            decision = answered(decide.sync(client=client, body=DecideRequest(conversation_id=conversation)))
            print(f"turn {turn} in {conversation}: {context} tokens, {decision.decision.value}: {decision.reason}")

            if decision.decision == DecisionKind.COMPACT:
                done = answered(
                    summarize.sync(
                        client=client,
                        # compactd summarizes the turns it stored; the context the agent
                        # holds (system prompt, tool output) is what the compaction saves.
                        body=SummarizeRequest(conversation_id=conversation, tokens_before=context),
                        # A retry after a timeout replays the answer instead of compacting twice.
                        idempotency_key=f"{conversation}-compact-{turn}",
                    )
                )
                if not done.success:
                    print(f"  the summary failed ({done.error}); carrying on with the full context")
                    continue
                compactions += 1
                context = SYSTEM_PROMPT_TOKENS + done.compaction.tokens_after
                print(f"  compacted: {done.compaction.tokens_before} -> {done.compaction.tokens_after} tokens")
            elif decision.decision == DecisionKind.ROLLOVER:
                started = answered(
                    handoff.sync(
                        client=client,
                        body=HandoffRequest(conversation_id=conversation),
                        idempotency_key=f"{conversation}-handoff-{turn}",
                    )
                )
                rollovers += 1
                conversation = started.successor_id
                conversations.append(conversation)
                # The new conversation starts from the system prompt and the handoff text.
                context = SYSTEM_PROMPT_TOKENS + HANDOFF_TOKENS
                print(f"  rolled over into {conversation}")

    print(json.dumps({"conversations": conversations, "compactions": compactions, "rollovers": rollovers}))
    return 0 if compactions > 0 and rollovers > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
