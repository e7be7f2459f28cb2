// State of the fake herdr: one JSON file shared by every invocation and by
// the test's control API. Concurrent invocations serialise on a kernel flock
// of `<state>.lock`, and writes go through temp file + rename so a reader never
// sees half a file.
import { dlopen, FFIType } from "bun:ffi";
import { closeSync, existsSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { randomHex } from "../../src/random";

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
  /** The terminal title the program sets (OSC 0/2); herdr reports it as `terminal_title`. */
  title?: string;
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
  /** herdr has not finished launching it (`agent start` in progress, or stuck on a startup screen). */
  launch_pending?: boolean;
  /** False until herdr has told which program it is (the record then has no `agent` field). */
  detected?: boolean;
  /** Found by herdr in a pane (a person typed it), not started with `agent start`: hidden until this time. */
  appears_at?: number;
  /** The terminal title its program set. */
  title?: string;
  /** The environment its program got (the server's, the tab's `--env`, herdr's own variables). */
  env?: Record<string, string>;
}

export interface PaneRec {
  pane_id: string;
  workspace_id: string;
  tab_id: string;
  terminal_id: string;
  cwd: string;
  label?: string;
  /** `--env` of the tab or pane create: added to the server's environment for this pane's shell. */
  env?: Record<string, string>;
  revision: number;
  transcript: string;
  visible: string | null;
  agent?: AgentRec;
}

export interface TabRec {
  tab_id: string;
  workspace_id: string;
  label: string;
  active_pane_id: string;
}

export interface WorkspaceRec {
  workspace_id: string;
  label: string;
  cwd: string;
  active_tab_id: string;
  next_tab: number;
  next_pane: number;
}

export interface ScheduledStep {
  pane_id: string;
  agent_uid: number;
  due_at: number;
  step: ReactionStep;
}

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

export interface PromptRecord {
  agent: string | null;
  kind: string;
  pane_id: string;
  text: string;
  at: string;
}
export interface KeysRecord {
  agent: string | null;
  pane_id: string;
  keys: string[];
  at: string;
}
/** A blocking `agent wait` / `agent prompt --wait` in progress, so tests can sync on it. */
export interface WaitRecord {
  pid: number;
  command: string;
  target: string;
  pane_id: string;
  since: string;
}
export interface PaneInputRecord {
  pane_id: string;
  kind: "run" | "text" | "keys";
  text?: string;
  keys?: string[];
  at: string;
}

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
  /** Source of `state_change_seq`: one counter for the whole server, as herdr has. */
  next_seq: number;
  /**
   * `herdr server stop` in progress: the first call fails with `server_unavailable`, the later
   * ones, as the server closes its socket, with a reset connection.
   */
  shutting_down: boolean;
  /** Calls answered `server_unavailable` since the stop began. */
  shutdown_answered: number;
  /**
   * The environment the server was started with, which every pane's shell inherits. Null: not
   * modelled, so every harness counts as installed and agents record no environment.
   */
  server_env: Record<string, string> | null;
  /** How long `agent start` waits for a program that never appears (herdr: 30 s). */
  start_timeout_ms: number;
  /** The scripted program each harness kind runs (see herdr-program.ts); absent: a bare agent. */
  programs: Record<string, ProgramDef>;
}

/** A screen a scripted program draws: its rows from the top, its title, and what herdr detects on it. */
export interface ProgramScreen {
  rows: string[];
  title?: string;
  status: AgentStatus;
}

/** One turn: on an input line starting with `prefix`, the screens drawn in order, each held `hold_ms`. */
export interface ProgramTurn {
  prefix: string;
  screens: { screen: ProgramScreen; hold_ms?: number }[];
}

/** A scripted harness program, as data both the real herdr (a script) and the fake can run. */
export interface ProgramDef {
  start: ProgramScreen;
  turns: ProgramTurn[];
}

/** The real herdr 0.8.2 (its version and API protocol) and a 39-row pane, as a new tab has. */
export function defaultState(): FakeState {
  return {
    version: "0.8.2",
    protocol: 20,
    server_running: true,
    protocol_mismatch: false,
    initial_status: "idle",
    stall_ms: 5000,
    screen_rows: 39,
    next_workspace: 1,
    next_agent_uid: 1,
    focused_workspace_id: null,
    workspaces: [],
    tabs: [],
    panes: [],
    scheduled: [],
    failures: [],
    prompts: [],
    keys: [],
    inputs: [],
    waiting: [],
    next_seq: 0,
    shutting_down: false,
    shutdown_answered: 0,
    server_env: null,
    start_timeout_ms: 30_000,
    programs: {},
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
  const tmp = `${path}.tmp-${process.pid}-${randomHex(4)}`;
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

export function newTerminalId(): string {
  return `term_${randomHex(7)}`;
}

export function iso(now: number): string {
  return new Date(now).toISOString();
}

export function findPane(s: FakeState, paneId: string): PaneRec | undefined {
  return s.panes.find((p) => p.pane_id === paneId);
}

/** Whether herdr lists the pane's agent now (one it found by itself shows only after a while). */
export function hasAgent(p: PaneRec, now = Date.now()): boolean {
  return !!p.agent && (p.agent.appears_at === undefined || p.agent.appears_at <= now);
}

/** A live agent by name, or the agent hosted by a pane id. */
export function findAgentPane(s: FakeState, target: string): PaneRec[] {
  const byPane = s.panes.filter((p) => hasAgent(p) && p.pane_id === target);
  if (byPane.length) return byPane;
  return s.panes.filter((p) => hasAgent(p) && p.agent?.name === target);
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

/** A new value of the server-wide `state_change_seq`. */
export function nextSeq(s: FakeState): number {
  s.next_seq = (s.next_seq ?? 0) + 1;
  return s.next_seq;
}

/** Whether `pane` is in the active tab of the focused workspace (herdr: its turns end as seen). */
export function inActiveTab(s: FakeState, pane: PaneRec): boolean {
  const ws = s.workspaces.find((w) => w.workspace_id === pane.workspace_id);
  return s.focused_workspace_id === pane.workspace_id && ws?.active_tab_id === pane.tab_id;
}

/**
 * The program's screen now reads `status`. As herdr does: a turn that ends (working or blocked to
 * idle) outside the active tab reads `done` until the tab is looked at; `done` stays `done` while
 * the screen stays idle. `force` counts a change even when the status is the same.
 */
export function setStatus(s: FakeState, pane: PaneRec, status: AgentStatus, force = false): void {
  const agent = pane.agent!;
  let next = status;
  if (status === "idle" && (agent.status === "working" || agent.status === "blocked") && !inActiveTab(s, pane)) next = "done";
  if (status === "idle" && agent.status === "done") next = "done";
  if (!force && agent.status === next) return;
  agent.status = next;
  agent.state_change_seq = nextSeq(s);
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
  if (agent && step.title !== undefined) agent.title = step.title;
  if (agent && step.status) setStatus(s, pane, step.status);
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

export function newAgent(s: FakeState, pane: PaneRec, kind: string, argv: string[], name?: string): AgentRec {
  const agent: AgentRec = {
    uid: s.next_agent_uid++,
    kind,
    status: s.initial_status,
    state_change_seq: 0,
    interactive_ready: true,
    argv,
    reactions: [],
    detected: true,
  };
  if (name) agent.name = name;
  pane.agent = agent;
  bumpRevision(pane);
  return agent;
}
