/**
 * The `opencode api` calls the OpenCode injector makes (CMDR-08): pure argv builders, the prompt
 * body, and reading the session list. `opencode api <METHOD> <path>` sends one request to the
 * OpenCode 2.x server that the user's own `opencode` talks to (found through HOME and the XDG
 * directories), prints the response body on stdout and exits non-zero on an HTTP error.
 */
import type { ExecResult } from "../exec";
import { EXEC_NOT_FOUND } from "../exec";

/**
 * Argv for `opencode api`, argv[0] found through the env's PATH. The prompt body is not part of
 * the argv: it goes on stdin, read by `--data @-`. OpenCode documents `--data <body>` but not how
 * a body reaches it otherwise; its CLI source reads `@-` as "the body is on stdin". Stdin keeps the
 * reason text (soldier notes) out of `ps` and out of any length limit on one argument. Should a
 * release not read stdin, the server rejects the empty body, the call fails, the wake is kept and
 * the herdr fallback delivers it; switching to an inline `--data <body>` is a change here only.
 */
export const opencodeArgv = {
  /** `POST /api/session/<id>/prompt`, body on stdin. */
  prompt: (sessionId: string): string[] => [
    "opencode", "api", "POST", `/api/session/${encodeURIComponent(sessionId)}/prompt`, "--data", "@-",
  ],
  /** `GET /api/session?directory=<project>`: the sessions of one project. */
  sessions: (projectPath: string): string[] => [
    "opencode", "api", "GET", `/api/session?directory=${encodeURIComponent(projectPath)}`,
  ],
};

/** The CMDR-08 body: the reason text as the prompt, queued behind a running turn. */
export function promptBody(text: string): string {
  return JSON.stringify({ prompt: { text }, delivery: "queue" });
}

type Json = Record<string, unknown>;

function isObject(x: unknown): x is Json {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

// Milliseconds in the API; an ISO string is accepted so a format change does not silently pick
// an arbitrary session.
function updatedAt(session: Json): number {
  const time = isObject(session.time) ? session.time : {};
  const raw = time.updated ?? session.updated;
  if (typeof raw === "number") return raw;
  if (typeof raw === "string") {
    const n = Date.parse(raw);
    return Number.isNaN(n) ? -Infinity : n;
  }
  return -Infinity;
}

function isRoot(session: Json): boolean {
  const parent = session.parentID ?? session.parentId;
  return parent === undefined || parent === null || parent === "";
}

/**
 * The id of the most recently updated root session (no parent: subagent sessions are children)
 * in a `GET /api/session` response: `{data: Session[]}` or a bare array. Undefined when there is
 * none or the output is not a session list.
 */
export function latestRootSession(stdout: string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout.trim());
  } catch {
    return undefined;
  }
  const list = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc.data) ? doc.data : undefined;
  let best: { id: string; at: number } | undefined;
  for (const s of list ?? []) {
    if (!isObject(s) || typeof s.id !== "string" || s.id === "" || !isRoot(s)) continue;
    const at = updatedAt(s);
    if (!best || at > best.at) best = { id: s.id, at };
  }
  return best?.id;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** One line saying why an `opencode api` call failed, for the sentinel log. */
export function apiFailure(argv: readonly string[], res: ExecResult): string {
  const call = `opencode api ${argv[2] ?? ""} ${(argv[3] ?? "").split("?")[0]}`;
  if (res.code === EXEC_NOT_FOUND) return "opencode not found in PATH";
  if (res.code === 124) return `${call} did not finish in time`;
  // OpenCode prints the HTTP status on stderr and the error body on stdout.
  const detail = [firstLine(res.stderr), firstLine(res.stdout)].filter(Boolean).join(": ");
  return `${call} failed (exit ${res.code})${detail ? `: ${detail}` : ""}`;
}
