// Read-only views for assertions: what the fake recorded (prompts, keys,
// pane input), which waits are blocking right now, and the call log.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { withState, type FakeState, type KeysRecord, type PaneInputRecord, type PromptRecord, type WaitRecord } from "./herdr-state.ts";

export type { KeysRecord, PaneInputRecord, PromptRecord, WaitRecord };

/** The env returned by installFakeHerdr, or a bare state file path. */
export type FakeHerdrRef = string | { FAKE_HERDR_STATE: string; FAKE_HERDR_LOG?: string };

export interface CallRecord {
  argv: string[];
  pid: number;
  at: string;
}

/** Runs `fn` on the fake's state under its lock (edits are saved). */
export function editState<T>(ref: FakeHerdrRef, fn: (s: FakeState, now: number) => T): T {
  return withState(typeof ref === "string" ? ref : ref.FAKE_HERDR_STATE, fn);
}

const view = editState;

function matches(r: { agent: string | null; pane_id: string }, target?: string): boolean {
  return target === undefined || r.agent === target || r.pane_id === target;
}

/** Prompts delivered by `agent prompt`, byte-exact, optionally for one agent name or pane id. */
export function recordedPrompts(ref: FakeHerdrRef, target?: string): PromptRecord[] {
  return view(ref, (s) => s.prompts.filter((r) => matches(r, target)));
}

/** Key batches sent by `agent send-keys`. */
export function sentKeys(ref: FakeHerdrRef, target?: string): KeysRecord[] {
  return view(ref, (s) => s.keys.filter((r) => matches(r, target)));
}

/** Input sent with `pane run`, `pane send-text` and `pane send-keys`. */
export function paneInputs(ref: FakeHerdrRef, paneId?: string): PaneInputRecord[] {
  return view(ref, (s) => s.inputs.filter((r) => paneId === undefined || r.pane_id === paneId));
}

/** The argv herdr typed to launch a live agent (`[<exe>, ...args]`), by name or pane id. */
export function agentArgv(ref: FakeHerdrRef, target: string): string[] | undefined {
  return view(ref, (s) => s.panes.find((p) => p.agent && (p.pane_id === target || p.agent.name === target))?.agent?.argv);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Blocking `agent wait` / `agent prompt --wait` calls now polling (killed callers are skipped). */
export function activeWaits(ref: FakeHerdrRef, target?: string): WaitRecord[] {
  return view(ref, (s) => s.waiting.filter((w) => alive(w.pid) && (target === undefined || w.target === target || w.pane_id === target)));
}

/** Every herdr invocation so far; one record per call, with its caller's pid. */
export function callLog(ref: FakeHerdrRef): CallRecord[] {
  const path = typeof ref === "string" ? join(dirname(ref), "herdr-calls.jsonl") : (ref.FAKE_HERDR_LOG ?? join(dirname(ref.FAKE_HERDR_STATE), "herdr-calls.jsonl"));
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CallRecord);
}

/** Calls whose argv starts with the given words, e.g. callsOf(env, "agent", "list"). */
export function callsOf(ref: FakeHerdrRef, ...prefix: string[]): CallRecord[] {
  return callLog(ref).filter((c) => {
    const argv = c.argv.filter((a, i, all) => a !== "--session" && all[i - 1] !== "--session" && !a.startsWith("--session="));
    return prefix.every((w, i) => argv[i] === w);
  });
}
