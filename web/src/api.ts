// The explorer's JSON API (docs/web.md "How it works"): one fetch wrapper that
// sends the session cookie, the CSRF token on every write, and turns the server's
// {"error": {"code", "message"}} into an ApiError.

export interface Session { principal: string; scopes: string[]; csrf: string; vault: string }
export interface TreeNote { path: string; title: string }
export interface Folder { path: string; name: string; count: number; folders: Folder[]; notes: TreeNote[] }
export interface Edge { type: string; target: string; why?: string; resolved: boolean }
export interface Backlink { source: string; title: string; line: number; context: string }
export interface Note {
  path: string; title: string; revision: string; commit: string; html: string;
  frontmatter: Record<string, unknown>; tags: string[]; edges: Edge[]; backlinks: Backlink[];
  archived: boolean; parse_error?: string; claims?: Record<string, unknown>[]; synthesis?: Record<string, unknown>;
}
export interface Hit { path: string; title: string; score: number; line: number; snippet: string; matched: string[] }
export interface SearchResult { engine: string; hits: Hit[] }
export interface GraphNode { id: string; title: string; degree: number; center: boolean }
export interface GraphEdge { source: string; target: string; type: string }
export interface Graph { nodes: GraphNode[]; edges: GraphEdge[]; truncated: boolean }
export interface Change { path: string; kind: string; from?: string; revision?: string; old_revision?: string }
export interface Commit { commit: string; author: string; time: string; op: string; reason?: string; subject?: string; changes: Change[]; changes_total?: number }
export interface History { commits: Commit[]; more: boolean }
export interface DiffLine { kind: "context" | "add" | "del"; old?: number; new?: number; text: string }
export interface Diff { from: string; to: string; lines: DiffLine[]; changed?: boolean; truncated?: boolean }

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) { super(message); }
}

let csrf = "";

// setCSRF keeps the session's CSRF token for every later write.
export function setCSRF(token: string): void { csrf = token; }

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (method !== "GET") {
    headers["X-CSRF-Token"] = csrf;
    headers["Content-Type"] = "application/json";
  }
  const res = await fetch(url, {
    method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data: unknown = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON: reported below */ }
  if (!res.ok) {
    const e = (data as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(res.status, e?.code ?? "http_" + res.status, e?.message ?? (text.slice(0, 200) || res.statusText));
  }
  return data as T;
}

function q(params: Record<string, string | number | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") u.set(k, String(v));
  const s = u.toString();
  return s ? "?" + s : "";
}

export const api = {
  session: () => call<Session>("GET", "/web/api/session"),
  login: (token: string) => call<Session>("POST", "/web/login", { token }),
  logout: () => call<unknown>("POST", "/web/logout", {}),
  tree: () => call<{ folders: Folder[] }>("GET", "/web/api/tree"),
  note: (path: string, at?: string) => call<Note>("GET", "/web/api/note" + q({ path, at })),
  search: (text: string, limit = 30) => call<SearchResult>("GET", "/web/api/search" + q({ q: text, limit })),
  graph: (path: string, depth: number, types: string, max: number) =>
    call<Graph>("GET", "/web/api/graph" + q({ path, depth, types, max })),
  hubs: (max: number) => call<Graph>("GET", "/web/api/hubs" + q({ max })),
  history: (path: string, skip: number, n: number) => call<History>("GET", "/web/api/history" + q({ path, skip, n })),
  diff: (path: string, from: string, to: string) => call<Diff>("GET", "/web/api/diff" + q({ path, from, to })),
  restore: (path: string, revision: string) => call<{ path: string; commit: string }>("POST", "/web/api/restore", { path, revision }),
};
