// Test-side control of the fake herdr. Every function reads or edits the
// same state file the fake executable uses, under the same lock, so a test can
// play the part of the agents (status, output, exits) and of the server.
import { existsSync, lstatSync, mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { sandboxPath } from "../tool-path";
import { fakeHerdrClient } from "./herdr-host.ts";
import { agentInfo } from "./herdr-info.ts";
import { closePane as closePaneRec, closeTab as closeTabRec, newTab, newWorkspace } from "./herdr-layout.ts";
import {
  appendTranscript,
  bumpRevision,
  defaultState,
  findAgentPane,
  findPane,
  newAgent,
  nextSeq,
  removeAgent as removeAgentRec,
  runReaction,
  setStatus,
  type AgentStatus,
  type FakeState,
  type PaneRec,
  type ProgramDef,
  type QueuedFailure,
  type ReactionStep,
} from "./herdr-state.ts";

export type { AgentStatus, FakeState, ProgramDef, ReactionStep };
export type { ProgramScreen, ProgramTurn } from "./herdr-state.ts";
export * from "./herdr-records.ts";
export * from "./herdr-server.ts";

import { editState, type FakeHerdrRef } from "./herdr-records.ts";

export interface FakeHerdrEnv {
  FAKE_HERDR_STATE: string;
  FAKE_HERDR_LOG: string;
  /** binDir prepended to the caller's PATH. */
  PATH: string;
}

export interface FakeHerdrConfig {
  version?: string;
  protocol?: number;
  /** Status of an agent right after `agent start` (herdr shows `unknown` while acquiring). */
  initialStatus?: AgentStatus;
  /** Stall window of `agent prompt --wait` (herdr: 5000 ms). */
  stallMs?: number;
  screenRows?: number;
  serverRunning?: boolean;
  protocolMismatch?: boolean;
  /**
   * The environment the server runs with: every pane's shell inherits it (not the caller's), and
   * `agent start` of a program missing from its PATH ends in `timeout`. Unset: not modelled.
   */
  serverEnv?: Record<string, string>;
  /** How long `agent start` waits for a missing program (herdr: 30000 ms). */
  startTimeoutMs?: number;
}

export interface InstallOptions extends FakeHerdrConfig {
  /** Where the state and call log live; defaults to binDir. */
  stateDir?: string;
}

export interface AgentInfo {
  /** Absent while herdr has not told the program apart (a launch in progress). */
  agent?: string;
  agent_status: AgentStatus;
  launch_pending?: boolean;
  terminal_title?: string;
  terminal_title_stripped?: string;
  name?: string;
  pane_id: string;
  tab_id: string;
  workspace_id: string;
  terminal_id: string;
  state_change_seq: number;
  revision: number;
  interactive_ready?: boolean;
  focused: boolean;
  cwd: string;
  foreground_cwd: string;
}

const edit = editState;

function paneFor(s: FakeState, target: string): PaneRec {
  const pane = findPane(s, target) ?? findAgentPane(s, target)[0];
  if (!pane) throw new Error(`fake herdr: no pane or agent ${target}`);
  return pane;
}

function agentPaneFor(s: FakeState, target: string): PaneRec {
  const pane = findAgentPane(s, target)[0];
  if (!pane) throw new Error(`fake herdr: no live agent ${target}`);
  return pane;
}

function applyConfig(s: FakeState, c: FakeHerdrConfig): void {
  if (c.version !== undefined) {
    s.version = c.version;
    s.protocol = c.protocol ?? protocolFor(c.version);
  } else if (c.protocol !== undefined) s.protocol = c.protocol;
  if (c.initialStatus !== undefined) s.initial_status = c.initialStatus;
  if (c.stallMs !== undefined) s.stall_ms = c.stallMs;
  if (c.screenRows !== undefined) s.screen_rows = c.screenRows;
  if (c.serverRunning !== undefined) s.server_running = c.serverRunning;
  if (c.protocolMismatch !== undefined) s.protocol_mismatch = c.protocolMismatch;
  if (c.serverEnv !== undefined) s.server_env = c.serverEnv;
  if (c.startTimeoutMs !== undefined) s.start_timeout_ms = c.startTimeoutMs;
}

function protocolFor(version: string): number {
  const [maj, min, patch] = version.split("-")[0]!.split(".").map(Number);
  if (maj === 0 && min === 8) return (patch ?? 0) >= 2 ? 20 : 19;
  if (maj === 0 && min === 7) return (patch ?? 0) >= 5 ? 17 : 16;
  return 22;
}

/**
 * Links `herdr` in binDir to the fake (the client of this test process's server, herdr-host.ts),
 * starts a fresh state and call log, and returns the env to run under.
 */
export function installFakeHerdr(binDir: string, opts: InstallOptions = {}): FakeHerdrEnv {
  const dir = opts.stateDir ?? binDir;
  mkdirSync(binDir, { recursive: true });
  mkdirSync(dir, { recursive: true });
  const link = join(binDir, "herdr");
  if (existsSync(link) || lstatSyncSafe(link)) unlinkSync(link);
  symlinkSync(fakeHerdrClient(), link);
  const env: FakeHerdrEnv = {
    FAKE_HERDR_STATE: join(dir, "herdr-state.json"),
    FAKE_HERDR_LOG: join(dir, "herdr-calls.jsonl"),
    PATH: sandboxPath(binDir),
  };
  const s = defaultState();
  applyConfig(s, opts);
  writeFileSync(env.FAKE_HERDR_STATE, JSON.stringify(s, null, 1));
  writeFileSync(env.FAKE_HERDR_LOG, "");
  return env;
}

function lstatSyncSafe(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

export function configure(ref: FakeHerdrRef, c: FakeHerdrConfig): void {
  edit(ref, (s) => applyConfig(s, c));
}

/** Sets the `herdr --version` string; the protocol follows the version unless given. */
export function setVersion(ref: FakeHerdrRef, version: string, protocol?: number): void {
  configure(ref, { version, protocol });
}

export function setProtocolMismatch(ref: FakeHerdrRef, on: boolean): void {
  configure(ref, { protocolMismatch: on });
}

export function createWorkspace(ref: FakeHerdrRef, opts: { cwd?: string; label?: string } = {}) {
  return edit(ref, (s) => {
    const { ws, tab, pane } = newWorkspace(s, opts.cwd ?? process.cwd(), opts.label);
    return { workspace_id: ws.workspace_id, tab_id: tab.tab_id, pane_id: pane.pane_id, terminal_id: pane.terminal_id };
  });
}

export function createTab(ref: FakeHerdrRef, workspaceId: string, opts: { cwd?: string; label?: string } = {}) {
  return edit(ref, (s) => {
    const ws = s.workspaces.find((w) => w.workspace_id === workspaceId);
    if (!ws) throw new Error(`fake herdr: no workspace ${workspaceId}`);
    const { tab, pane } = newTab(s, ws, opts.cwd ?? ws.cwd, opts.label);
    return { tab_id: tab.tab_id, pane_id: pane.pane_id, terminal_id: pane.terminal_id };
  });
}

/** Puts an agent into a pane directly, as if started or detected. */
export function addAgent(ref: FakeHerdrRef, paneId: string, opts: { name?: string; kind?: string; status?: AgentStatus; args?: string[]; ready?: boolean } = {}): AgentInfo {
  return edit(ref, (s) => {
    const pane = findPane(s, paneId);
    if (!pane) throw new Error(`fake herdr: no pane ${paneId}`);
    if (pane.agent) throw new Error(`fake herdr: pane ${paneId} already hosts an agent`);
    const kind = opts.kind ?? "claude";
    const agent = newAgent(s, pane, kind, [kind, ...(opts.args ?? [])], opts.name);
    if (opts.status) agent.status = opts.status;
    if (agent.status !== "unknown") agent.state_change_seq = nextSeq(s);
    if (opts.ready === false) agent.interactive_ready = false;
    return agentInfo(s, pane) as unknown as AgentInfo;
  });
}

export function getAgent(ref: FakeHerdrRef, target: string): AgentInfo | undefined {
  return edit(ref, (s) => {
    const pane = findAgentPane(s, target)[0];
    return pane ? (agentInfo(s, pane) as unknown as AgentInfo) : undefined;
  });
}

export function listAgents(ref: FakeHerdrRef): AgentInfo[] {
  return edit(ref, (s) => s.panes.filter((p) => p.agent).map((p) => agentInfo(s, p) as unknown as AgentInfo));
}

/**
 * The program's screen now reads `status` (idle after a turn reads `done` outside the active tab,
 * as herdr has it); bumps state_change_seq unless `bump: false` (herdr's missed-transition quirk).
 * Returns the seq.
 */
export function setAgentStatus(ref: FakeHerdrRef, target: string, status: AgentStatus, opts: { bump?: boolean } = {}): number {
  return edit(ref, (s) => {
    const pane = agentPaneFor(s, target);
    const agent = pane.agent!;
    if (opts.bump === false) agent.status = status;
    else setStatus(s, pane, status, true);
    return agent.state_change_seq;
  });
}

export function setAgentReady(ref: FakeHerdrRef, target: string, ready: boolean): void {
  edit(ref, (s) => {
    agentPaneFor(s, target).agent!.interactive_ready = ready;
  });
}

export type TextSource = "recent" | "visible";

/** Replaces the transcript (`recent`, `recent-unwrapped`) or the visible screen; null screen = transcript tail. */
export function setPaneText(ref: FakeHerdrRef, target: string, text: string | null, source: TextSource = "recent"): void {
  edit(ref, (s) => {
    const pane = paneFor(s, target);
    if (source === "visible") pane.visible = text;
    else pane.transcript = text ?? "";
    bumpRevision(pane);
  });
}

/** Appends verbatim (add your own newlines). */
export function appendPaneText(ref: FakeHerdrRef, target: string, text: string, source: TextSource = "recent"): void {
  edit(ref, (s) => {
    const pane = paneFor(s, target);
    if (source === "visible") {
      pane.visible = (pane.visible ?? "") + text;
      bumpRevision(pane);
    } else appendTranscript(pane, text);
  });
}

export function paneText(ref: FakeHerdrRef, target: string, source: TextSource = "recent"): string | null {
  return edit(ref, (s) => {
    const pane = paneFor(s, target);
    return source === "visible" ? pane.visible : pane.transcript;
  });
}

/** The agent exits: it leaves `agent list`, the pane stays as a plain shell. */
export function removeAgent(ref: FakeHerdrRef, target: string): void {
  edit(ref, (s) => removeAgentRec(s, agentPaneFor(s, target)));
}

export function closePane(ref: FakeHerdrRef, paneId: string): boolean {
  return edit(ref, (s) => closePaneRec(s, paneId));
}

export function closeTab(ref: FakeHerdrRef, tabId: string): boolean {
  return edit(ref, (s) => closeTabRec(s, tabId));
}

export interface FailureOptions {
  /** How many calls fail (default 1). */
  count?: number;
  message?: string;
  /** Only calls whose first positional (agent name, pane id, target) equals this. */
  target?: string;
  /** agent start + agent_not_ready: dialog text shown in the pane (default: a trust-folder dialog). */
  dialog?: string;
  /** agent start + agent_not_ready: keys that dismiss the dialog via `agent send-keys`, space-separated, in order (default: "1" for a given dialog, "Down Enter" for the default one). */
  acceptKey?: string;
  /** agent prompt: deliver the prompt, then fail anyway (a false agent_prompt_stalled). */
  deliver?: boolean;
}

/** Makes the next `count` calls of `command` ("agent start", "agent prompt", ...) fail with `code`. */
export function queueFailure(ref: FakeHerdrRef, command: string, code: string, opts: FailureOptions = {}): void {
  edit(ref, (s) => {
    const f: QueuedFailure = { command, code, remaining: opts.count ?? 1 };
    if (opts.message !== undefined) f.message = opts.message;
    if (opts.target !== undefined) f.target = opts.target;
    if (opts.dialog !== undefined) f.dialog = opts.dialog;
    if (opts.acceptKey !== undefined) f.accept_key = opts.acceptKey;
    if (opts.deliver) f.deliver = true;
    s.failures.push(f);
  });
}

/**
 * Makes every `command` call (e.g. "agent start") wait, as a slow herdr does, until `release()`;
 * the held call then runs as usual.
 */
export function holdCommand(ref: FakeHerdrRef, command: string): { release(): void } {
  const statePath = typeof ref === "string" ? ref : ref.FAKE_HERDR_STATE;
  const gate = join(dirname(statePath), `hold-${command.replace(/\W+/g, "-")}`);
  writeFileSync(gate, "");
  edit(ref, (s) => {
    s.holds = [...(s.holds ?? []).filter((h) => h.command !== command), { command, gate }];
  });
  return { release: () => rmSync(gate, { force: true }) };
}

export function clearFailures(ref: FakeHerdrRef): void {
  edit(ref, (s) => {
    s.failures = [];
  });
}

/**
 * Scripts what the agent does when prompted. `once` queues a reaction for the
 * next prompt only; otherwise it applies to every prompt (null clears it).
 * Without any reaction a prompt just turns the agent `working`.
 */
export function setPromptReaction(ref: FakeHerdrRef, target: string, steps: ReactionStep[] | null, opts: { once?: boolean } = {}): void {
  edit(ref, (s) => {
    const agent = agentPaneFor(s, target).agent!;
    if (opts.once && steps) agent.reactions.push(steps);
    else if (steps) agent.reaction = steps;
    else {
      agent.reaction = undefined;
      agent.reactions = [];
    }
  });
}

/** Runs steps relative to now, without a prompt (e.g. the agent finishes 300 ms from now). */
export function scheduleSteps(ref: FakeHerdrRef, target: string, steps: ReactionStep[]): void {
  edit(ref, (s, now) => runReaction(s, agentPaneFor(s, target), steps, now));
}

export function readState(ref: FakeHerdrRef): FakeState {
  return edit(ref, (s) => structuredClone(s));
}

/** Escape hatch: edit the raw state under the lock. */
export function updateState<T>(ref: FakeHerdrRef, fn: (s: FakeState, now: number) => T): T {
  return edit(ref, fn);
}
