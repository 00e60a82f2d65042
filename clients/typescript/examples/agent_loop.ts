/**
 * An agent's loop with compactd, through the TypeScript client.
 *
 * After every model call the agent reports how much of the context window is in
 * use; after every turn it stores the turn and asks what to do. `compact`:
 * compactd writes the summary (from the stored turns) and the agent carries on
 * from it. `rollover`: compactd renders the handoff that starts a new
 * conversation, and the agent carries on there.
 *
 * The model is simulated (each turn adds about 4,000 tokens to a 20,000-token
 * window) so that a short run shows every branch: it compacts, compacts again
 * too soon and is told to roll over, then compacts in the successor.
 *
 *     cd clients/typescript && npm ci && npm run build
 *     COMPACTD_URL=http://127.0.0.1:8080 COMPACTD_API_KEY=cpk_... npm run example
 *
 * It prints one line per turn and, last, a JSON line with what happened; it
 * exits non-zero when the run did not show both a compaction and a rollover.
 */
import { randomUUID } from "node:crypto";
import { answered, createCompactdClient } from "../src/index.js";

const WINDOW = 20_000;
const TOKENS_PER_TURN = 4_000;
const SYSTEM_PROMPT_TOKENS = 2_000;
const HANDOFF_TOKENS = 1_000;
const TURNS = 12;

async function main(): Promise<number> {
  const compactd = createCompactdClient({
    baseUrl: process.env.COMPACTD_URL ?? "http://127.0.0.1:8080",
    apiKey: process.env.COMPACTD_API_KEY,
  });
  let conversation = process.env.CONVERSATION_ID || `ts-agent-${randomUUID()}`;
  const conversations = [conversation];
  let compactions = 0;
  let rollovers = 0;
  let context = SYSTEM_PROMPT_TOKENS;

  for (let turn = 1; turn <= TURNS; turn++) {
    const user = `Step ${turn}: add the index idx_orders_${turn} to orders and report its size.`;
    context += TOKENS_PER_TURN; // what the provider's usage says this call used
    const assistant = `Created idx_orders_${turn}; the context now holds ${context} tokens.`;

    answered(
      await compactd.POST("/usage", {
        body: { conversation_id: conversation, used: context, size: WINDOW, input: context, output: 300 },
      }),
    );
    answered(await compactd.POST("/turn-ended", { body: { conversation_id: conversation, user, assistant } }));
    const decision = answered(await compactd.POST("/decide", { body: { conversation_id: conversation } }));
    console.log(`turn ${turn} in ${conversation}: ${context} tokens, ${decision.decision}: ${decision.reason}`);

    if (decision.decision === "compact") {
      const done = answered(
        await compactd.POST("/summarize", {
          // compactd summarizes the turns it stored; the context the agent holds
          // (system prompt, tool output) is what the compaction saves.
          body: { conversation_id: conversation, tokens_before: context },
          // A retry after a timeout replays the answer instead of compacting twice.
          params: { header: { "Idempotency-Key": `${conversation}-compact-${turn}` } },
        }),
      );
      if (!done.success) {
        console.log(`  the summary failed (${done.error}); carrying on with the full context`);
        continue;
      }
      compactions++;
      context = SYSTEM_PROMPT_TOKENS + done.compaction.tokens_after;
      console.log(`  compacted: ${done.compaction.tokens_before} -> ${done.compaction.tokens_after} tokens`);
    } else if (decision.decision === "rollover") {
      const started = answered(
        await compactd.POST("/handoff", {
          body: { conversation_id: conversation },
          params: { header: { "Idempotency-Key": `${conversation}-handoff-${turn}` } },
        }),
      );
      if (!started.successor_id) {
        throw new Error("a handoff that was not declined names its successor");
      }
      rollovers++;
      conversation = started.successor_id;
      conversations.push(conversation);
      // The new conversation starts from the system prompt and the handoff text.
      context = SYSTEM_PROMPT_TOKENS + HANDOFF_TOKENS;
      console.log(`  rolled over into ${conversation}`);
    }
  }

  console.log(JSON.stringify({ conversations, compactions, rollovers }));
  return compactions > 0 && rollovers > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
