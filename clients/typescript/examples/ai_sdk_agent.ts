/**
 * An AI SDK agent with compactd, runnable with no model and no key to a
 * provider: the SDK's own mock language model (`ai/test`) answers, reporting
 * the token usage a real one would, and `compactdMiddleware` compacts the
 * prompt and rolls the conversation over where compactd says. The caller
 * sends its whole history on every call, as AI SDK callers do, through
 * `generateText` and `streamText`.
 *
 * Every call gets a middleware of its own, as a Next.js or serverless route
 * that builds `wrapLanguageModel(...)` per request does: what it needs (the
 * successor, the pending decision, what was compacted) it reads back from
 * compactd. PER_REQUEST=0 shares one instance instead; both act the same.
 *
 *     npm ci && npx tsc   (in clients/typescript)
 *     COMPACTD_URL=http://127.0.0.1:8080 [COMPACTD_API_KEY=…] node dist/examples/ai_sdk_agent.js
 *
 * It prints a line per model call and, last, a JSON line: the conversations
 * it went through, the compactions and rollovers, and the prompts the model
 * was given (tests/api/ai_sdk.rs checks them). It exits non-zero when the run
 * did not both compact and roll over.
 */
import { generateText, jsonSchema, type ModelMessage, simulateReadableStream, streamText, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { compactdMiddleware } from "../src/ai-sdk.js";
import { createCompactdClient } from "../src/index.js";

function usage(used: number) {
  return {
    inputTokens: { total: used - 200, noCache: used / 2 - 200, cacheRead: used / 2, cacheWrite: 0 },
    outputTokens: { total: 200, text: 200, reasoning: 0 },
  };
}

const stop = { unified: "stop" as const, raw: "stop" };
const toolCalls = { unified: "tool-calls" as const, raw: "tool_use" };
// What the model answers, call by call: [text, tool call or none, context in use].
const answers: [string, { name: string; input: object } | null, number][] = [
  ["", { name: "deploy", input: { build: 4711, target: "staging" } }, 6_000],
  ["Deployed build 4711 to staging.", null, 7_200],
  ["Tagged v2.3.1 and updated docs/release.md.", null, 16_500],
  ["CI run 88231 passed.", null, 19_400],
  ["Done.", null, 4_000],
  ["Changelog updated.", null, 4_500],
];
let call = 0;
const model = new MockLanguageModelV3({
  doGenerate: async () => {
    const [text, tool, used] = answers[call++]!;
    const content = tool
      ? [{ type: "tool-call" as const, toolCallId: `call_${call}`, toolName: tool.name, input: JSON.stringify(tool.input) }]
      : [{ type: "text" as const, text }];
    return { content, finishReason: tool ? toolCalls : stop, usage: usage(used), warnings: [] };
  },
  doStream: async () => {
    const [text, , used] = answers[call++]!;
    return {
      stream: simulateReadableStream({
        chunks: [
          { type: "text-start" as const, id: "t" },
          { type: "text-delta" as const, id: "t", delta: text },
          { type: "text-end" as const, id: "t" },
          { type: "finish" as const, finishReason: stop, usage: usage(used) },
        ],
      }),
    };
  },
});

const baseUrl = process.env.COMPACTD_URL ?? "http://127.0.0.1:8080";
const apiKey = process.env.COMPACTD_API_KEY || undefined;
const first = process.env.CONVERSATION ?? `ai-sdk-example-${Date.now()}`;
const conversations = [first];
function instance() {
  return wrapLanguageModel({
    model,
    middleware: compactdMiddleware({
      baseUrl,
      apiKey,
      conversationId: first,
      window: 20_000,
      keepRecentTokens: 60,
      onRollover: (successor) => {
        if (!conversations.includes(successor)) conversations.push(successor);
      },
    }),
  });
}
const shared = instance();
const wrapped = () => (process.env.PER_REQUEST === "0" ? shared : instance());

/** What the model was given on its latest call, in a line. */
function shown(label: string): void {
  const calls = [...model.doGenerateCalls, ...model.doStreamCalls];
  const prompt = calls[calls.length - 1]?.prompt ?? [];
  const compacted = prompt.some((message) => JSON.stringify(message.content).includes("compactd"));
  console.log(
    `${label}: the model saw ${prompt.length} messages${compacted ? ", compactd's summary or handoff first" : ""} (conversation ${conversations[conversations.length - 1]})`,
  );
}

const system = "You are a release agent.";
const history: ModelMessage[] = [];
// No `execute`: the caller runs the tool and sends its result, as agents that own their tools do.
const tools = {
  deploy: tool({
    description: "Deploy a build to an environment.",
    inputSchema: jsonSchema<{ build: number; target: string }>({
      type: "object",
      properties: { build: { type: "number" }, target: { type: "string" } },
    }),
  }),
};

async function turn(request: string, stream = false): Promise<void> {
  history.push({ role: "user", content: request });
  if (stream) {
    const result = streamText({ model: wrapped(), system, messages: history });
    history.push({ role: "assistant", content: await result.text });
  } else {
    const result = await generateText({ model: wrapped(), system, messages: history });
    history.push(...result.response.messages);
  }
  shown(`${stream ? "streamText" : "generateText"} ${JSON.stringify(request)}`);
}

/** The compactions compactd wrote at its trigger, over the lineage. */
async function compactions(): Promise<number> {
  const client = createCompactdClient({ baseUrl, apiKey });
  let count = 0;
  for (const id of conversations) {
    const { data, error } = await client.GET("/conversations/{id}/compactions", { params: { path: { id } } });
    if (error || !data) throw new Error(`the ledger of ${id} could not be read: ${JSON.stringify(error)}`);
    count += data.compactions.filter((row) => row.success && row.trigger === "threshold_exceeded").length;
  }
  return count;
}

async function main(): Promise<void> {
  // Turn 1: the model calls a tool; the caller answers it and calls again.
  history.push({ role: "user", content: "Deploy build 4711 to staging. Never deploy on Fridays." });
  const asked = await generateText({ model: wrapped(), system, messages: history, tools });
  history.push(...asked.response.messages);
  shown("generateText, a tool call");
  const called = asked.toolCalls[0]!;
  history.push({
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: called.toolCallId,
        toolName: called.toolName,
        output: { type: "text", value: "build 4711 is live on staging.example.com (took 41s)" },
      },
    ],
  });
  const second = await generateText({ model: wrapped(), system, messages: history, tools });
  history.push(...second.response.messages);
  shown("generateText, the tool's result");
  await turn("Now tag it v2.3.1 and update docs/release.md.");
  await turn("Check the CI run https://ci.example.com/runs/88231.");
  await turn("Thanks, carry on.", true);
  await turn("And the changelog?", true);
  const prompts = [...model.doGenerateCalls, ...model.doStreamCalls].map((options) =>
    options.prompt.map((message) => ({
      role: message.role,
      text:
        typeof message.content === "string"
          ? message.content
          : message.content.map((part) => ("text" in part ? part.text : part.type)).join(" "),
    })),
  );
  const compacted = await compactions();
  const rollovers = conversations.length - 1;
  console.log(JSON.stringify({ conversations, compactions: compacted, rollovers, prompts }));
  if (compacted === 0 || rollovers === 0) {
    console.error("the run did not both compact and roll over");
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
