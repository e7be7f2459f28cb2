// State of the fake herdr: one JSON file shared by every invocation and by
// the test's control API. Concurrent invocations serialise on a kernel flock
// of `<state>.lock`, and writes go through temp file + rename so a reader never
// sees half a file.
import { dlopen, FFIType } from "bun:ffi";
import { closeSync, existsSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";

export type AgentStatus = "idle" | "working" | "blocked" | "done" | "unknown";
export const AGENT_STATUSES: readonly AgentStatus[] = ["idle", "working", "blocked", "done", "unknown"];

/** One step of a scripted reaction; `after_ms` counts from the prompt. */
export interface ReactionStep {
  after_ms: number;
  status?: AgentStatus;
  append_text?: string;
  /** Replaces the visible screen; null drops it (reads fall back to the transcript). */
  set_visible?: string | null;
  ready?: boolean;
  remove_agent?: boolean;
}

export interface AgentRec {
  /** Distinguishes successive occupants of one pane, so waits and steps stay pinned. */
  uid: number;
  name?: string;
  kind: string;
  status: AgentStatus;
  state_change_seq: number;
  interactive_ready: boolean;
  argv: string[];
  /** One-shot reactions, consumed by prompts in order before `reaction`. */
  reactions: ReactionStep[][];
  reaction?: ReactionStep[];
  /** A startup dialog that these keys (space-separated, in order) dismiss (agent_not_ready / trust dialog). */
  accept_key?: string;
  /** The native session an integration reported (AgentInfo `agent_session`). */
  agent_session?: { source: string; agent: string; kind: "id" | "path"; value: string };
}

export interface PaneRec {
  pane_id: string;
  workspace_id: string;
  tab_id: string;
  terminal_id: string;
  cwd: string;
  label?: string;
  revision: number;
  transcript: string;
  visible: string | null;
  agent?: AgentRec;
}

export interface TabRec { tab_id: string; workspace_id: string; label: string; active_pane_id: string }

export interface WorkspaceRec {
  workspace_id: string;
  label: string;
  cwd: string;
  active_tab_id: string;
  next_tab: number;
  next_pane: number;
}

export interface ScheduledStep { pane_id: string; agent_uid: number; due_at: number; step: ReactionStep }

export interface QueuedFailure {
  /** "<group> <verb>", e.g. "agent start". */
  command: string;
  code: string;
  message?: string;
  remaining: number;
  /** Only calls whose first positional equals this are hit. */
  target?: string;
  /** agent start + agent_not_ready: screen text of the blocking dialog. */
  dialog?: string;
  accept_key?: string;
  /** agent prompt: deliver the prompt before failing (a false stall). */
  deliver?: boolean;
}

export interface PromptRecord { agent: string | null; kind: string; pane_id: string; text: string; at: string }
export interface KeysRecord { agent: string | null; pane_id: string; keys: string[]; at: string }
/** A blocking `agent wait` / `agent prompt --wait` in progress, so tests can sync on it. */
export interface WaitRecord { pid: number; command: string; target: string; pane_id: string; since: string }
export interface PaneInputRecord { pane_id: string; kind: "run" | "text" | "keys"; text?: string; keys?: string[]; at: string }

export interface FakeState {
  version: string;
  protocol: number;
  server_running: boolean;
  protocol_mismatch: boolean;
  /** Status of an agent right after `agent start`. */
  initial_status: AgentStatus;
  /** How long `agent prompt --wait` tolerates an unchanged state_change_seq. */
  stall_ms: number;
  screen_rows: number;
  next_workspace: number;
  next_agent_uid: number;
  focused_workspace_id: string | null;
  workspaces: WorkspaceRec[];
  tabs: TabRec[];
  panes: PaneRec[];
  scheduled: ScheduledStep[];
  failures: QueuedFailure[];
  prompts: PromptRecord[];
  keys: KeysRecord[];
  inputs: PaneInputRecord[];
  waiting: WaitRecord[];
  /** Commands that take as long as herdr can (a slow agent start): each waits while its gate file exists. */
  holds?: { command: string; gate: string }[];
}

export function defaultState(): FakeState {
  return {
    version: "0.9.3", protocol: 22, server_running: true, protocol_mismatch: false,
    initial_status: "idle", stall_ms: 5000, screen_rows: 40,
    next_workspace: 1, next_agent_uid: 1, focused_workspace_id: null,
    workspaces: [], tabs: [], panes: [], scheduled: [], failures: [], prompts: [], keys: [], inputs: [], waiting: [],
  };
}

let flockSym: ((fd: number, op: number) => number) | null = null;

function flock(fd: number, op: number): void {
  if (!flockSym) {
    const lib = process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6";
    flockSym = dlopen(lib, { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } }).symbols.flock;
  }
  // A signal can interrupt a blocking flock (EINTR); retrying is the documented remedy.
  for (let i = 0; i < 100; i++) if (flockSym(fd, op) === 0) return;
  throw new Error(`flock(${op}) failed on fd ${fd}`);
}

const LOCK_EX = 2;
const LOCK_UN = 8;

export function loadState(path: string): FakeState {
  if (!existsSync(path)) return defaultState();
  return { ...defaultState(), ...(JSON.parse(readFileSync(path, "utf8")) as FakeState) };
}

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (e) {
    if (existsSync(tmp)) unlinkSync(tmp);
    throw e;
  }
}

/**
 * Runs `fn` on the state under the lock, after applying every scripted step
 * that is due, and saves the result if it changed. The state is saved even
 * when `fn` throws, because consumed failures and applied steps must persist.
 */
export function withState<T>(path: string, fn: (s: FakeState, now: number) => T): T {
  const fd = openSync(`${path}.lock`, "a");
  try {
    flock(fd, LOCK_EX);
    const before = existsSync(path) ? readFileSync(path, "utf8") : "";
    const s = before ? { ...defaultState(), ...(JSON.parse(before) as FakeState) } : defaultState();
    const now = Date.now();
    try {
      applyDueSteps(s, now);
      return fn(s, now);
    } finally {
      const after = JSON.stringify(s, null, 1);
      if (after !== before) writeAtomic(path, after);
    }
  } finally {
    flock(fd, LOCK_UN);
    closeSync(fd);
  }
}

const ALPHABET = "123456789ABCDEFGHJKMNPQRSTVWXYZ0";

/** herdr's bijective base-32 numbering: 1..9, A.., 0 (=32), then 11. */
export function encodeNumber(n: number): string {
  let out = "";
  while (n > 0) {
    n -= 1;
    out = ALPHABET[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

export function newTerminalId(): string {
  return `term_${randomBytes(7).toString("hex")}`;
}

export function iso(now: number): string {
  return new Date(now).toISOString();
}

export function findPane(s: FakeState, paneId: string): PaneRec | undefined {
  return s.panes.find((p) => p.pane_id === paneId);
}

/** A live agent by name, or the agent hosted by a pane id. */
export function findAgentPane(s: FakeState, target: string): PaneRec[] {
  const byPane = s.panes.filter((p) => p.agent && p.pane_id === target);
  if (byPane.length) return byPane;
  return s.panes.filter((p) => p.agent?.name === target);
}

export function bumpRevision(pane: PaneRec): void {
  pane.revision += 1;
}

export function appendTranscript(pane: PaneRec, text: string): void {
  if (!text) return;
  pane.transcript += text;
  bumpRevision(pane);
}

/** Starts `text` on a fresh line, as a TUI echoing submitted input would. */
export function appendLine(pane: PaneRec, text: string): void {
  const sep = pane.transcript && !pane.transcript.endsWith("\n") ? "\n" : "";
  appendTranscript(pane, `${sep}${text}\n`);
}

export function setStatus(agent: AgentRec, status: AgentStatus, force = false): void {
  if (!force && agent.status === status) return;
  agent.status = status;
  agent.state_change_seq += 1;
}

export function removeAgent(s: FakeState, pane: PaneRec): void {
  if (!pane.agent) return;
  const uid = pane.agent.uid;
  pane.agent = undefined;
  s.scheduled = s.scheduled.filter((x) => x.agent_uid !== uid);
  bumpRevision(pane);
}

export function applyStep(s: FakeState, pane: PaneRec, step: ReactionStep): void {
  const agent = pane.agent;
  if (step.append_text) appendTranscript(pane, step.append_text);
  if (step.set_visible !== undefined) {
    pane.visible = step.set_visible;
    bumpRevision(pane);
  }
  if (agent && step.ready !== undefined) agent.interactive_ready = step.ready;
  if (agent && step.status) setStatus(agent, step.status);
  if (step.remove_agent) removeAgent(s, pane);
}

/** Time advances lazily: whoever touches the state applies what is due. */
export function applyDueSteps(s: FakeState, now: number): void {
  if (!s.scheduled.some((x) => x.due_at <= now)) return;
  const due = s.scheduled.filter((x) => x.due_at <= now).sort((a, b) => a.due_at - b.due_at);
  s.scheduled = s.scheduled.filter((x) => x.due_at > now);
  for (const x of due) {
    const pane = findPane(s, x.pane_id);
    if (pane?.agent?.uid === x.agent_uid) applyStep(s, pane, x.step);
  }
}

/** Applies the zero-delay steps now and schedules the rest with absolute due times. */
export function runReaction(s: FakeState, pane: PaneRec, steps: ReactionStep[], now: number): void {
  const uid = pane.agent!.uid;
  for (const step of steps) s.scheduled.push({ pane_id: pane.pane_id, agent_uid: uid, due_at: now + Math.max(0, step.after_ms), step });
  applyDueSteps(s, now);
}

export function closePane(s: FakeState, paneId: string): boolean {
  const pane = findPane(s, paneId);
  if (!pane) return false;
  removeAgent(s, pane);
  s.panes = s.panes.filter((p) => p !== pane);
  const tab = s.tabs.find((t) => t.tab_id === pane.tab_id);
  if (!tab) return true;
  const left = s.panes.filter((p) => p.tab_id === tab.tab_id);
  if (!left.length) closeTab(s, tab.tab_id);
  else if (tab.active_pane_id === paneId) tab.active_pane_id = left[0]!.pane_id;
  return true;
}

export function closeTab(s: FakeState, tabId: string): boolean {
  const tab = s.tabs.find((t) => t.tab_id === tabId);
  if (!tab) return false;
  for (const p of s.panes.filter((x) => x.tab_id === tabId)) removeAgent(s, p);
  s.panes = s.panes.filter((p) => p.tab_id !== tabId);
  s.tabs = s.tabs.filter((t) => t !== tab);
  const ws = s.workspaces.find((w) => w.workspace_id === tab.workspace_id);
  if (!ws) return true;
  // Since 0.8.0 closing the last tab closes the workspace.
  const left = s.tabs.filter((t) => t.workspace_id === ws.workspace_id);
  if (!left.length) closeWorkspace(s, ws.workspace_id);
  else if (ws.active_tab_id === tabId) ws.active_tab_id = left[0]!.tab_id;
  return true;
}

export function closeWorkspace(s: FakeState, wsId: string): boolean {
  if (!s.workspaces.some((w) => w.workspace_id === wsId)) return false;
  for (const p of s.panes.filter((x) => x.workspace_id === wsId)) removeAgent(s, p);
  s.panes = s.panes.filter((p) => p.workspace_id !== wsId);
  s.tabs = s.tabs.filter((t) => t.workspace_id !== wsId);
  s.workspaces = s.workspaces.filter((w) => w.workspace_id !== wsId);
  if (s.focused_workspace_id === wsId) s.focused_workspace_id = s.workspaces[0]?.workspace_id ?? null;
  return true;
}

export function newPane(s: FakeState, ws: WorkspaceRec, tabId: string, cwd: string): PaneRec {
  const pane: PaneRec = {
    pane_id: `${ws.workspace_id}:p${encodeNumber(ws.next_pane++)}`,
    workspace_id: ws.workspace_id, tab_id: tabId, terminal_id: newTerminalId(),
    cwd, revision: 0, transcript: "", visible: null,
  };
  s.panes.push(pane);
  return pane;
}

export function newTab(s: FakeState, ws: WorkspaceRec, cwd: string, label?: string): { tab: TabRec; pane: PaneRec } {
  const tabId = `${ws.workspace_id}:t${encodeNumber(ws.next_tab++)}`;
  const number = s.tabs.filter((t) => t.workspace_id === ws.workspace_id).length + 1;
  const tab: TabRec = { tab_id: tabId, workspace_id: ws.workspace_id, label: label ?? String(number), active_pane_id: "" };
  s.tabs.push(tab);
  const pane = newPane(s, ws, tabId, cwd);
  tab.active_pane_id = pane.pane_id;
  return { tab, pane };
}

export function newWorkspace(s: FakeState, cwd: string, label?: string): { ws: WorkspaceRec; tab: TabRec; pane: PaneRec } {
  const id = `w${encodeNumber(s.next_workspace++)}`;
  const ws: WorkspaceRec = { workspace_id: id, label: label ?? id, cwd, active_tab_id: "", next_tab: 1, next_pane: 1 };
  s.workspaces.push(ws);
  const { tab, pane } = newTab(s, ws, cwd);
  ws.active_tab_id = tab.tab_id;
  // A server always shows some workspace; the first one becomes active.
  if (!s.focused_workspace_id) s.focused_workspace_id = id;
  return { ws, tab, pane };
}

export function newAgent(s: FakeState, pane: PaneRec, kind: string, argv: string[], name?: string): AgentRec {
  const agent: AgentRec = {
    uid: s.next_agent_uid++, kind, status: s.initial_status, state_change_seq: 0,
    interactive_ready: true, argv, reactions: [],
  };
  if (name) agent.name = name;
  pane.agent = agent;
  bumpRevision(pane);
  return agent;
}
