/**
 * compactd's TypeScript client: the paths and schemas of `openapi/openapi.json`
 * (generated into `schema.d.ts` by openapi-typescript) called through
 * openapi-fetch, so every path, body and answer is type-checked.
 *
 * ```ts
 * const compactd = createCompactdClient({ baseUrl: "http://127.0.0.1:8080", apiKey });
 * const { data, error } = await compactd.POST("/decide", { body: { conversation_id: "c1" } });
 * ```
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, paths };
/** The API's schemas by name: `Schemas["DecideResponse"]`, `Schemas["Problem"]`, ... */
export type Schemas = components["schemas"];
export type CompactdClient = Client<paths>;

export interface CompactdOptions {
  /** Where compactd listens, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A key from `compactd keys create`; a service without keys runs open and needs none. */
  apiKey?: string;
  /** Another fetch (for tests, proxies or retries); the global one by default. */
  fetch?: (input: Request) => Promise<Response>;
}

export function createCompactdClient(options: CompactdOptions): CompactdClient {
  const headers: Record<string, string> = {};
  if (options.apiKey) {
    headers.Authorization = `Bearer ${options.apiKey}`;
  }
  return createClient<paths>({ baseUrl: options.baseUrl, headers, fetch: options.fetch });
}

/** A problem+json answer (RFC 9457) as an exception, for callers that prefer throwing. */
export class CompactdProblem extends Error {
  constructor(readonly problem: Schemas["Problem"]) {
    super(`compactd said ${problem.status} ${problem.title}: ${problem.detail}`);
    this.name = "CompactdProblem";
  }
}

/** The answer's data, or a thrown `CompactdProblem` for an error answer. */
/**
 * A report sent with `Prefer: return=minimal`: compactd answers 204 and no
 * body. Returns when it was recorded; throws a `CompactdProblem` when not.
 */
export function recorded(result: { error?: unknown; response: Response }): void {
  if (result.response.ok) {
    return;
  }
  answered(result);
}

/** The header that asks for no body in a report's answer (RFC 7240). */
export const RETURN_MINIMAL = { Prefer: "return=minimal" } as const;

export function answered<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) {
    return result.data;
  }
  const problem = result.error as Schemas["Problem"] | undefined;
  throw new CompactdProblem(
    problem ?? {
      type: "about:blank",
      title: result.response.statusText,
      status: result.response.status,
      detail: "The answer carried no problem document.",
    },
  );
}
