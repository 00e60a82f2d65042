/**
 * The AI SDK middleware against a live compactd, on the SDK's own mock
 * language model (`ai/test`) reporting token usage: an agent's history sent
 * whole on every call, as AI SDK callers do, through `generateText` and
 * `streamText`. Prints one JSON object: the prompts the model was given, and
 * the conversations. Run by tests/api/ai_sdk.rs.
 *
 * With PER_REQUEST=1 every call gets a middleware of its own, as a route
 * that builds `wrapLanguageModel(...)` per request does, always with the
 * first conversation's id: what it needs it reads back from compactd.
 *
 *     COMPACTD_URL=http://127.0.0.1:8080 CONVERSATION=… [PER_REQUEST=1] node dist/tests/ai_sdk.js
 */
import { generateText, jsonSchema, type ModelMessage, simulateReadableStream, streamText, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { compactdMiddleware } from "../src/ai-sdk.js";

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

const conversations = [process.env.CONVERSATION!];
function instance() {
  return wrapLanguageModel({
    model,
    middleware: compactdMiddleware({
      baseUrl: process.env.COMPACTD_URL!,
      conversationId: process.env.CONVERSATION!,
      window: 20_000,
      keepRecentTokens: 60,
      onRollover: (successor) => {
        if (!conversations.includes(successor)) conversations.push(successor);
      },
    }),
  });
}
const shared = instance();
const wrapped = () => (process.env.PER_REQUEST === "1" ? instance() : shared);

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
    return;
  }
  const result = await generateText({ model: wrapped(), system, messages: history });
  history.push(...result.response.messages);
}

async function main(): Promise<void> {
  // Turn 1: the model calls a tool; the caller answers it and calls again.
  history.push({ role: "user", content: "Deploy build 4711 to staging. Never deploy on Fridays." });
  const first = await generateText({ model: wrapped(), system, messages: history, tools });
  history.push(...first.response.messages);
  const called = first.toolCalls[0]!;
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
  console.log(JSON.stringify({ prompts, conversations }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
