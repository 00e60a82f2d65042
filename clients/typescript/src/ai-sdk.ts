/**
 * compactd for the Vercel AI SDK (`ai` 6): a language-model middleware for
 * `wrapLanguageModel`, so `generateText` and `streamText` calls are compacted
 * and rolled over where compactd says.
 *
 * - After each model call it reports the call's usage (`/usage`). A call that
 *   ends the turn (finish reason `stop`, not `tool-calls`) stores the turn
 *   (`/turn-ended`) and asks what to do (`/decide`).
 * - Before the next call, when compactd said `compact`, the prompt's messages
 *   since the last compaction go to `/summarize`. compactd keeps the newest
 *   ones (about `keepRecentTokens`) whole, never splitting a tool call from
 *   its result; the older ones are replaced by its summary. When it said
 *   `rollover`, `/handoff` renders the text that starts the successor, and
 *   the prompt is that text and the new request.
 * - The AI SDK is stateless: callers send their whole history every time. So
 *   the middleware remembers what it replaced, and replaces it again in every
 *   later prompt that starts with the same messages.
 * - It keeps nothing it cannot read back: a middleware made for one request
 *   (a Next.js route, a serverless function) reads, on its first call, the
 *   conversation's newest successor, the decision compactd left pending, and
 *   what its compactions and handoff replaced, from compactd itself. A fresh
 *   instance per request compacts and rolls over as a long-lived one does.
 * - It fails open: compactd down, slower than its timeout or refusing (401,
 *   429, 5xx, an answer it cannot read) never fails the model call. The
 *   reports and reads have `timeoutMs` (2 s); the calls that write a summary
 *   or a handoff (`/summarize`, `/handoff`) have `summarizeTimeoutMs` (90 s:
 *   a model upstream takes tens of seconds to write a summary). It logs once
 *   (`console.warn`, again only after compactd answered in between), the
 *   model is given the prompt as it stands (no compaction, no rollover), and
 *   the next call reads compactd's state afresh and tries again. The model's
 *   own errors are the caller's, as without it.
 * - A conversation found rolled over (its `/decide` names a successor: another
 *   instance rolled it over, or this one never heard its handoff answered)
 *   is left for the successor: the next call reads the lineage afresh.
 *
 * ```ts
 * import { wrapLanguageModel, generateText } from "ai";
 * import { compactdMiddleware } from "compactd-client/ai-sdk";
 * const model = wrapLanguageModel({
 *   model: openai("gpt-5"),
 *   middleware: compactdMiddleware({ baseUrl, apiKey, conversationId: "ticket-4711", window: 400_000 }),
 * });
 * ```
 */
import type { LanguageModelMiddleware } from "ai";
import {
  answered,
  type CompactdClient,
  CompactdProblem,
  createCompactdClient,
  RETURN_MINIMAL,
  recorded,
  type Schemas,
} from "./index.js";

type TransformParams = NonNullable<LanguageModelMiddleware["transformParams"]>;
type CallOptions = Parameters<TransformParams>[0]["params"];
type Prompt = CallOptions["prompt"];
type PromptMessage = Prompt[number];
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware["wrapGenerate"]>>>;
type Usage = GenerateResult["usage"];

export interface CompactdMiddlewareOptions {
  /** Where compactd listens, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A key from `compactd keys create`; none for a service without keys. */
  apiKey?: string;
  /** compactd's conversation; after a rollover, the successor's (see `onRollover`). */
  conversationId: string;
  /** The model's context window, when compactd should know it. */
  window?: number;
  /** About how many tokens of the newest messages a compaction keeps whole (default 2,000). */
  keepRecentTokens?: number;
  /**
   * Told the successor's id when this middleware rolls the conversation over:
   * once per rollover, never again by a later instance that finds it.
   */
  onRollover?: (successorId: string) => void;
  /**
   * How long a report or a read (`/usage`, `/turn-ended`, `/decide`, the
   * first reads) may take before the model call goes on without it (default
   * 2,000 ms).
   */
  timeoutMs?: number;
  /**
   * How long a call that writes a summary or a handoff (`/summarize`,
   * `/handoff`) may take before the model call goes on with its prompt as it
   * stands (default 90,000 ms: past compactd's own `/summarize` deadline,
   * `COMPACTD_LLM_DEADLINE_SECS` + 15 s, 75 s by default, so compactd answers
   * first, even when it gives up on its upstream). A model upstream writes a
   * summary in tens of seconds; a shorter timeout would abandon every one.
   */
  summarizeTimeoutMs?: number;
  /** Another client (for tests); one is made from `baseUrl` and `apiKey` otherwise. */
  client?: CompactdClient;
}

/** What a compaction or a rollover replaced: the prompt's first messages. */
interface Replaced {
  /** How many of the caller's messages (system messages aside). */
  count: number;
  /** The messages themselves, as JSON, to know them again. */
  fingerprint: string;
  /** What stands in their place. */
  with: PromptMessage[];
  /** It starts with a handoff, which a later compaction keeps in front. */
  handoff: boolean;
}

const SUMMARY_OPENING = "Here is a summary of the conversation to date:\n\n";

/**
 * The compactd services (by base URL) whose latest call failed: an outage is
 * logged once, by whichever instance meets it first, and again only after
 * compactd answered in between. Shared, so instances made per request do not
 * log once each.
 */
const failing = new Set<string>();

/** A call to compactd that gave up waiting, and how long it had waited. */
class NoAnswer extends Error {
  constructor(readonly waitedMs: number) {
    super(`no answer within ${waitedMs} ms`);
    this.name = "NoAnswer";
  }
}

/** An abort by a call's own timeout, as `fetch` throws it. */
function timedOut(err: unknown): boolean {
  return err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
}

/** What went wrong in a call to compactd, in a few words. */
function whatFailed(err: unknown, timeoutMs: number): string {
  if (err instanceof NoAnswer) return err.message;
  if (err instanceof Error) {
    if (timedOut(err)) return `no answer within ${timeoutMs} ms`;
    const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
    if (typeof cause?.code === "string") return `${err.message} (${cause.code})`;
    if (typeof cause?.message === "string") return `${err.message} (${cause.message})`;
    return err.message;
  }
  return String(err);
}

/**
 * The successor a `/decide` answer names: the conversation rolled over (SPEC
 * §3: it answers `keep` with `successor_id`; its state names it too).
 */
function successorOf(decided: Schemas["DecideResponse"]): string | undefined {
  const named = (decided as { successor_id?: unknown }).successor_id ?? decided?.state?.successor_id;
  return typeof named === "string" && named !== "" ? named : undefined;
}

/** A decision as compactd words it, or an error for an answer that is not one. */
function decisionOf(decided: Schemas["DecideResponse"]): "compact" | "rollover" | undefined {
  const decision: unknown = decided?.decision;
  if (decision === "keep") return undefined;
  if (decision === "compact" || decision === "rollover") return decision;
  throw new Error(`compactd answered /decide with no decision it knows (${JSON.stringify(decision)})`);
}

function textOf(message: PromptMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((part) => (part.type === "text" || part.type === "reasoning" ? part.text : ""))
    .filter((text) => text !== "")
    .join("\n");
}

function resultText(output: { type: string; value?: unknown }): string {
  if (output.type === "text" || output.type === "error-text") return String(output.value ?? "");
  if (output.value === undefined) return output.type;
  return JSON.stringify(output.value);
}

/** A prompt message in compactd's chat shape (a tool message may hold several results). */
function transcript(message: PromptMessage): Schemas["TranscriptMessage"][] {
  switch (message.role) {
    case "system":
      return [{ role: "system", content: message.content }];
    case "user":
      return [{ role: "user", content: textOf(message) }];
    case "assistant": {
      const calls = message.content.flatMap((part) =>
        part.type === "tool-call" ? [{ id: part.toolCallId, name: part.toolName, arguments: JSON.stringify(part.input ?? {}) }] : [],
      );
      const results = message.content.flatMap((part) =>
        part.type === "tool-result"
          ? [{ role: "tool" as const, tool_call_id: part.toolCallId, content: resultText(part.output) }]
          : [],
      );
      return [{ role: "assistant", content: textOf(message), tool_calls: calls.length ? calls : null }, ...results];
    }
    case "tool":
      return message.content.flatMap((part) =>
        part.type === "tool-result" ? [{ role: "tool" as const, tool_call_id: part.toolCallId, content: resultText(part.output) }] : [],
      );
  }
}

/** `delta` in compactd's chat shape, each with the index of the prompt message it came from. */
function expanded(delta: PromptMessage[]): { at: number; message: Schemas["TranscriptMessage"] }[] {
  return delta.flatMap((message, at) => transcript(message).map((shaped) => ({ at, message: shaped })));
}

/**
 * How many of `delta`'s prompt messages a compaction that kept from sent
 * message `keptFrom` replaced: kept from a prompt message's start, so a
 * message holding a call and its results stays whole.
 */
function replacedOf(delta: PromptMessage[], keptFrom: number | null | undefined): number {
  const sent = expanded(delta);
  return typeof keptFrom === "number" && keptFrom < sent.length ? sent[keptFrom]!.at : delta.length;
}

function userMessage(text: string): PromptMessage {
  return { role: "user", content: [{ type: "text", text }] };
}

/** What a call's usage says, for `/usage` (the conversation is the caller's to add). */
function contextUsed(usage: Usage): Omit<Schemas["UsageRequest"], "conversation_id"> | undefined {
  const input = usage.inputTokens.total;
  if (input === undefined) return undefined;
  const output = usage.outputTokens.total ?? 0;
  return {
    used: input + output,
    input,
    output,
    cached_read: usage.inputTokens.cacheRead ?? null,
    cache_written: usage.inputTokens.cacheWrite ?? null,
  };
}

export function compactdMiddleware(options: CompactdMiddlewareOptions): LanguageModelMiddleware {
  const compactd = options.client ?? createCompactdClient({ baseUrl: options.baseUrl, apiKey: options.apiKey });
  const timeoutMs = options.timeoutMs ?? 2_000;
  const summarizeTimeoutMs = options.summarizeTimeoutMs ?? 90_000;
  let conversation = options.conversationId;
  let pending: "compact" | "rollover" | undefined;
  let replaced: Replaced | undefined;
  let lastUsed: number | undefined;
  /** compactd's state has been read (and nothing failed since): this instance may act and report. */
  let synced = false;
  /**
   * The conversation whose `/handoff` this instance sent and never saw
   * answered (a timeout, a connection lost): compactd may have rolled it over.
   */
  let unanswered: string | undefined;

  /** A report or a read gives up after `timeoutMs`. */
  const bounded = () => ({ signal: AbortSignal.timeout(timeoutMs) });

  /**
   * A call that writes a summary or a handoff: it gives up after
   * `summarizeTimeoutMs`, and says so.
   */
  async function writing<T>(call: (init: { signal: AbortSignal }) => Promise<T>): Promise<T> {
    try {
      return await call({ signal: AbortSignal.timeout(summarizeTimeoutMs) });
    } catch (err) {
      throw timedOut(err) ? new NoAnswer(summarizeTimeoutMs) : err;
    }
  }

  /** compactd answered everything asked: an outage, if there was one, is over. */
  function answeredAgain(): void {
    failing.delete(options.baseUrl);
  }

  /**
   * A call to compactd failed: logged once an outage, and the instance reads
   * compactd's state afresh on its next call (nothing half-done is kept).
   */
  function failedOpen(err: unknown): void {
    synced = false;
    if (failing.has(options.baseUrl)) return;
    failing.add(options.baseUrl);
    console.warn(
      `compactd (${options.baseUrl}) failed: ${whatFailed(err, timeoutMs)}. ` +
        "The model calls go on with their prompts as they are; each tries compactd again. " +
        "Not logged again until compactd has answered.",
    );
  }

  async function stateOf(id: string): Promise<Schemas["ConversationState"] | undefined> {
    const read = await compactd.GET("/conversations/{id}", { params: { path: { id } }, ...bounded() });
    if (read.response.status === 404) return undefined;
    return answered(read);
  }

  /**
   * What an earlier instance (or this one, before a failure) left, read back
   * from compactd before the first call: the newest conversation of the
   * lineage, the decision still pending there, and what its handoff and
   * compactions replaced. Nothing changes unless all of it was read.
   */
  async function sync(messages: PromptMessage[]): Promise<void> {
    if (synced) return;
    let current = options.conversationId;
    let state = await stateOf(current);
    let predecessor: string | undefined;
    let toldNow = false;
    for (let hops = 0; state?.successor_id && hops < 32; hops++) {
      predecessor = current;
      // The rollover this instance asked for and never heard back about: it happened.
      if (predecessor === unanswered) toldNow = true;
      current = state.successor_id;
      state = await stateOf(current);
    }
    let found: Replaced | undefined;
    let left: "compact" | "rollover" | undefined;
    if (state) {
      const decision = state.pending_decision?.decision;
      left = decision === "compact" || decision === "rollover" ? decision : undefined;
      let since = 0;
      let front: PromptMessage[] = [];
      if (predecessor !== undefined) {
        // A second handoff answers the first's text; the successor began at
        // the request its first stored turn holds.
        const started = answered(
          await writing((init) => compactd.POST("/handoff", { body: { conversation_id: predecessor }, ...init })),
        );
        front = [userMessage(started.text ?? "")];
        const first = answered(
          await compactd.GET("/conversations/{id}/turns", {
            params: { path: { id: current }, query: { from: 1, limit: 1 } },
            ...bounded(),
          }),
        ).turns.find((turn) => turn.conversation_id === current && turn.id === 1);
        let at = -1;
        messages.forEach((message, index) => {
          if (message.role === "user" && first?.user != null && textOf(message) === first.user) at = index;
        });
        since = at >= 0 ? at : Math.max(messages.length - 1, 0);
        found = { count: since, fingerprint: JSON.stringify(messages.slice(0, since)), with: front, handoff: true };
      }
      const ledger = answered(
        await compactd.GET("/conversations/{id}/compactions", {
          params: { path: { id: current }, query: { limit: 500 } },
          ...bounded(),
        }),
      );
      // Oldest first: each took the messages after the one before, and kept its newest.
      const mine = ledger.compactions.filter((row) => row.success && typeof row.kept_from === "number").reverse();
      for (const row of mine) {
        since += replacedOf(messages.slice(since), row.kept_from);
      }
      if (mine.length > 0 && state.summary) {
        found = {
          count: since,
          fingerprint: JSON.stringify(messages.slice(0, since)),
          with: [...front, userMessage(SUMMARY_OPENING + state.summary.text)],
          handoff: predecessor !== undefined,
        };
      }
    }
    conversation = current;
    pending = left;
    lastUsed = state && state.used > 0 ? state.used : undefined;
    replaced = found;
    unanswered = undefined;
    synced = true;
    // A rollover found here was told by the instance that made it; only one
    // this instance made and never heard answered is still to be told.
    if (toldNow) options.onRollover?.(conversation);
  }

  /** The caller's messages (system ones aside), with what was replaced standing in for it. */
  function applied(messages: PromptMessage[]): { shown: PromptMessage[]; since: number } {
    if (replaced && messages.length >= replaced.count) {
      if (JSON.stringify(messages.slice(0, replaced.count)) === replaced.fingerprint) {
        return { shown: [...replaced.with, ...messages.slice(replaced.count)], since: replaced.count };
      }
    }
    return { shown: messages, since: 0 };
  }

  async function compact(messages: PromptMessage[], since: number): Promise<void> {
    // The delta: the caller's messages after what compactd already summarized.
    const delta = messages.slice(since);
    const sent = expanded(delta);
    if (sent.length === 0) return;
    const done = answered(
      await writing((init) =>
        compactd.POST("/summarize", {
          body: {
            conversation_id: conversation,
            messages: sent.map((s) => s.message),
            keep_recent_tokens: options.keepRecentTokens ?? 2_000,
            tokens_before: lastUsed ?? null,
          },
          ...init,
        }),
      ),
    );
    if (!done.success || !done.summary) return; // compactd kept the anchor; nothing changes
    const count = since + replacedOf(delta, done.compaction.kept_from);
    replaced = {
      count,
      fingerprint: JSON.stringify(messages.slice(0, count)),
      with: [...(replaced?.handoff ? replaced.with.slice(0, 1) : []), userMessage(SUMMARY_OPENING + done.summary)],
      handoff: replaced?.handoff ?? false,
    };
  }

  /** Rolls over; answers the successor, to be told once the prompt is ready. */
  async function rollOver(messages: PromptMessage[]): Promise<string> {
    unanswered = conversation;
    let started: Schemas["HandoffResponse"];
    try {
      started = answered(
        await writing((init) => compactd.POST("/handoff", { body: { conversation_id: conversation }, ...init })),
      );
    } catch (err) {
      // Refused in so many words: nothing rolled over.
      if (err instanceof CompactdProblem) unanswered = undefined;
      throw err;
    }
    unanswered = undefined;
    conversation = started.successor_id ?? conversation;
    // The new request is the successor's first: everything before it is the handoff.
    const count = Math.max(messages.length - 1, 0);
    replaced = { count, fingerprint: JSON.stringify(messages.slice(0, count)), with: [userMessage(started.text ?? "")], handoff: true };
    return conversation;
  }

  async function transformPrompt(prompt: Prompt): Promise<Prompt> {
    const system = prompt.filter((message) => message.role === "system");
    const messages = prompt.filter((message) => message.role !== "system");
    let successor: string | undefined;
    try {
      const asked = !synced || pending !== undefined;
      await sync(messages);
      const action = pending;
      if (action === "compact") await compact(messages, applied(messages).since);
      if (action === "rollover") successor = await rollOver(messages);
      pending = undefined;
      if (asked || action) answeredAgain();
    } catch (err) {
      // The prompt as it stands: what was replaced before stays replaced, nothing more.
      failedOpen(err);
    }
    // The caller's own code, outside what fails open.
    if (successor !== undefined) options.onRollover?.(successor);
    return [...system, ...applied(messages).shown];
  }

  async function afterCall(prompt: Prompt, usage: Usage, finish: string, reply: string, model: string): Promise<void> {
    const report = contextUsed(usage);
    if (report) {
      lastUsed = report.used;
      // The state it answers is not read here: no body (`Prefer: return=minimal`).
      recorded(
        await compactd.POST("/usage", {
          params: { header: RETURN_MINIMAL },
          // The model names the price of what a compaction spares each call.
          body: { ...report, conversation_id: conversation, size: options.window ?? null, model },
          ...bounded(),
        }),
      );
    }
    if (finish === "tool-calls") return; // the turn goes on
    const user = [...prompt].reverse().find((message) => message.role === "user");
    recorded(
      await compactd.POST("/turn-ended", {
        params: { header: RETURN_MINIMAL },
        body: { conversation_id: conversation, user: user ? textOf(user) : null, assistant: reply || null },
        ...bounded(),
      }),
    );
    const decided = answered(await compactd.POST("/decide", { body: { conversation_id: conversation }, ...bounded() }));
    const successor = successorOf(decided);
    if (successor !== undefined && successor !== conversation) {
      // Rolled over, by another instance or by a handoff whose answer this
      // one never heard: the next call reads the lineage afresh and carries
      // on in the successor, from its handoff (told by whoever made it).
      pending = undefined;
      synced = false;
      return;
    }
    pending = decisionOf(decided);
  }

  /**
   * After the model answered: report, when compactd's state was read before
   * the call (else which conversation this is, is not known; the next call
   * reads it again). A failure is logged, never thrown.
   */
  async function reported(prompt: Prompt, usage: Usage, finish: string, reply: string, model: string): Promise<void> {
    if (!synced) return;
    try {
      await afterCall(prompt, usage, finish, reply, model);
      answeredAgain();
    } catch (err) {
      failedOpen(err);
    }
  }

  return {
    specificationVersion: "v3",
    async transformParams({ params }) {
      return { ...params, prompt: await transformPrompt(params.prompt) };
    },
    async wrapGenerate({ doGenerate, params, model }) {
      const result = await doGenerate();
      const reply = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
      await reported(params.prompt, result.usage, result.finishReason.unified, reply, model.modelId);
      return result;
    },
    async wrapStream({ doStream, params, model }) {
      const { stream, ...rest } = await doStream();
      let reply = "";
      const watched = stream.pipeThrough(
        new TransformStream({
          async transform(part, controller) {
            if (part.type === "text-delta") reply += part.delta;
            if (part.type === "finish") {
              await reported(params.prompt, part.usage, part.finishReason.unified, reply, model.modelId);
            }
            controller.enqueue(part);
          },
        }),
      );
      return { stream: watched, ...rest };
    },
  };
}
