/**
 * `compactdMiddleware` driven one model call at a time, for the tests
 * (tests/api/ai_sdk.rs): whatever compactd does (down, refusing, silent, back
 * again), the call answers with the model's reply.
 *
 *     COMPACTD_URL=http://127.0.0.1:8080 CONVERSATION=c1 node dist/examples/ai_sdk_fail_open.js
 *
 * Each line on stdin is a call, as JSON:
 * `{"request": "…", "used": 5000, "fresh": true, "stream": false, "url": "…", "fails": false}`:
 * the user's request (added to the history the caller keeps), the context
 * the SDK's mock model reports using, a middleware made for this call (else
 * one shared by the calls to the same compactd), `streamText` rather than
 * `generateText`, another compactd than COMPACTD_URL, and a model that fails
 * rather than answers. Each gets a line of JSON: the reply (or the error the
 * call threw), how long it took, how many warnings were logged so far, the
 * successors `onRollover` was told, and the prompt the model was given.
 * A first line, `{"ready": true}`, says it has loaded; with LOCK_FD set, it
 * first closes that descriptor (clients/tools.sh's lock, held while the
 * package was compiled and loaded), so other runs need not wait for this one.
 */
import { closeSync } from "node:fs";
import * as readline from "node:readline";
import { generateText, type LanguageModel, type ModelMessage, streamText, simulateReadableStream, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { compactdMiddleware } from "../src/ai-sdk.js";

interface Call {
  request: string;
  used?: number;
  fresh?: boolean;
  stream?: boolean;
  url?: string;
  fails?: boolean;
}

let warnings = 0;
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  warnings++;
  warn(...args);
};

const baseUrl = process.env.COMPACTD_URL ?? "http://127.0.0.1:8080";
const apiKey = process.env.COMPACTD_API_KEY || undefined;
const conversationId = process.env.CONVERSATION ?? `ai-sdk-fail-open-${Date.now()}`;
const told: string[] = [];

let answer = { text: "", used: 0, fails: false };
function usage(used: number) {
  return {
    inputTokens: { total: used - 200, noCache: used - 200, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 200, text: 200, reasoning: 0 },
  };
}
const stop = { unified: "stop" as const, raw: "stop" };
/** The prompt the model was given last. */
let given: { role: string; content: string | { type: string; text?: string }[] }[] = [];
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    given = prompt;
    if (answer.fails) throw new Error("the model is overloaded");
    return { content: [{ type: "text" as const, text: answer.text }], finishReason: stop, usage: usage(answer.used), warnings: [] };
  },
  doStream: async ({ prompt }) => {
    given = prompt;
    if (answer.fails) throw new Error("the model is overloaded");
    return {
      stream: simulateReadableStream({
        chunks: [
          { type: "text-start" as const, id: "t" },
          { type: "text-delta" as const, id: "t", delta: answer.text },
          { type: "text-end" as const, id: "t" },
          { type: "finish" as const, finishReason: stop, usage: usage(answer.used) },
        ],
      }),
    };
  },
});

function instance(url: string): LanguageModel {
  return wrapLanguageModel({
    model,
    middleware: compactdMiddleware({
      baseUrl: url,
      apiKey,
      conversationId,
      window: 20_000,
      keepRecentTokens: 60,
      onRollover: (successor) => told.push(successor),
    }),
  });
}
const shared = new Map<string, LanguageModel>();
function wrapped(call: Call): LanguageModel {
  const url = call.url ?? baseUrl;
  if (call.fresh) return instance(url);
  if (!shared.has(url)) shared.set(url, instance(url));
  return shared.get(url)!;
}

const system = "You are a release agent.";
const history: ModelMessage[] = [];

async function run(call: Call): Promise<object> {
  history.push({ role: "user", content: call.request });
  answer = { text: `Answered: ${call.request}`, used: call.used ?? 5_000, fails: call.fails ?? false };
  const started = Date.now();
  let reply: string | undefined;
  let error: string | undefined;
  try {
    if (call.stream) {
      let failed: unknown;
      const result = streamText({
        model: wrapped(call),
        system,
        messages: history,
        maxRetries: 0,
        onError: ({ error }) => {
          failed = error;
        },
      });
      reply = await result.text;
      if (failed !== undefined) throw failed;
    } else {
      reply = (await generateText({ model: wrapped(call), system, messages: history, maxRetries: 0 })).text;
    }
    history.push({ role: "assistant", content: reply });
  } catch (err) {
    history.pop();
    error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
  const prompt = given.map((message) => ({
    role: message.role,
    text:
      typeof message.content === "string"
        ? message.content
        : message.content.map((part) => part.text ?? part.type).join(" "),
  }));
  return { reply, error, ms: Date.now() - started, warnings, told, prompt };
}

if (process.env.LOCK_FD) closeSync(Number(process.env.LOCK_FD));
console.log(JSON.stringify({ ready: true }));
// One call at a time, in order; the answer is the line's.
let queue = Promise.resolve();
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() === "") return;
  queue = queue.then(async () => console.log(JSON.stringify(await run(JSON.parse(line) as Call))));
});
