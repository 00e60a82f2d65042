// Reads compactd's JSON API with the key the operator gave (kept in this
// browser only). Problems come back as thrown ApiProblems.

const KEY = "compactd.key";

export class ApiProblem extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export function key() {
  return localStorage.getItem(KEY) || "";
}

export function setKey(value) {
  if (value) localStorage.setItem(KEY, value);
  else localStorage.removeItem(KEY);
}

/** GET `path` with `params` (absent and empty ones left out). */
export async function get(path, params = {}) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(name, value);
  }
  const url = query.size ? `${path}?${query}` : path;
  const headers = { accept: "application/json" };
  if (key()) headers.authorization = `Bearer ${key()}`;
  const response = await fetch(url, { headers });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiProblem(response.status, body);
  return body;
}

export function conversationPath(id) {
  return `/conversations/${encodeURIComponent(id)}`;
}
