/** The sentinel's decision for one running task (SEN-07..19): pure, so every rule is tested with a fake clock. */
import { backendFor } from "../backends";
import { parseModal, parseProse } from "../decisions/dialog";
import { redact } from "../redact";
import type { Decision, Task, TaskStatus } from "../state/schemas";
import { DURATIONS, ageOf, isoTime } from "../time";
import { type Evidence, backgroundWork, finalTurnWindow, needsDecision, turnInProgress } from "./evidence";
import * as notes from "./notes";
import { composeOutput } from "../state/tasks";

export type PauseState = "none" | "active" | "stale";

/** Pane texts are raw; undefined = unreadable. */
export type Observation =
  | { kind: "missing" }
  | { kind: "present"; status: string }
  | { kind: "blocked"; transcript?: string; visible?: string }
  | {
      kind: "idle";
      transcript?: string;
      /** SEN-14: a commit ahead of base (mission) or the report file (scout). */
      completion: boolean;
      reportPath?: string;
      pause: PauseState;
      /** SEN-15. */
      stability?: "stable" | "unstable" | "unreadable";
    };

/** Field changes; `undefined` clears a field. */
export type Patch = Partial<Record<keyof Task, unknown>>;

export type Action =
  | { type: "none" }
  | { type: "mark"; patch: Patch; log?: string }
  | { type: "stabilize"; toward: "done" | "blocked" }
  | {
      type: "settle";
      to: TaskStatus;
      output: string;
      decision?: Decision;
      note?: string;
      reportPath?: string;
    };

/** Already scaled by the caller. */
export type Windows = Record<"settleGrace" | "notFoundWindow" | "unconfirmedWindow" | "stillRunningLimit", number>;

export const NOMINAL_WINDOWS: Windows = {
  settleGrace: DURATIONS.settleGrace,
  notFoundWindow: DURATIONS.notFoundWindow,
  unconfirmedWindow: DURATIONS.unconfirmedWindow,
  stillRunningLimit: DURATIONS.stillRunningLimit,
};

/** A future time (the clock stepped back) counts as long ago. */
const since = (now: number, iso: string | undefined) => (iso ? ageOf(now, Date.parse(iso)) : Number.NaN);

/** SEN-07: asked before reading a pane, and again by `decide`. */
export function inSettleGrace(task: Pick<Task, "updated_at">, now: number, w: Pick<Windows, "settleGrace">): boolean {
  return since(now, task.updated_at) < w.settleGrace;
}

function mark(patch: Patch, log?: string): Action {
  return Object.keys(patch).length ? { type: "mark", patch, log } : { type: "none" };
}

/** SEN-10: a dialog on screen, so answered by option keys (`modal`, CMD-DECIDE-02): herdr refuses a typed prompt then. */
function blockedDecision(transcript: string | undefined, visible: string | undefined, nowIso: string): Decision {
  const modal = visible !== undefined ? parseModal(visible) : null;
  const parsed = modal ?? parseProse(transcript ?? visible ?? "");
  return {
    question: redact(parsed.question),
    options: parsed.options.map(redact),
    asked_at: nowIso,
    kind: "modal",
  };
}

/** `key`: the project key, for log lines. */
export function decide(task: Task, obs: Observation, now: number, w: Windows, key: string): Action {
  const nowIso = isoTime(now);
  if (inSettleGrace(task, now, w)) return { type: "none" };

  if (obs.kind === "missing") {
    if (!task.agent_not_found_since) return mark({ agent_not_found_since: nowIso });
    if (since(now, task.agent_not_found_since) < w.notFoundWindow) return { type: "none" };
    const note = backendFor(task).goneNote;
    return { type: "settle", to: "interrupted", output: composeOutput(undefined, task.output, [note]), note };
  }

  // Any sighting clears a not-found mark, so a blip never counts toward a later disappearance.
  const patch: Patch = task.agent_not_found_since ? { agent_not_found_since: undefined } : {};

  if (obs.kind === "blocked") {
    const output = composeOutput(obs.transcript === undefined ? undefined : redact(obs.transcript), task.output, []);
    return { type: "settle", to: "blocked", output, decision: blockedDecision(obs.transcript, obs.visible, nowIso) };
  }

  if (obs.kind === "present") {
    if (obs.status === "working") {
      if (task.idle_unconfirmed_since) patch.idle_unconfirmed_since = undefined;
      if (task.held_running_since) patch.held_running_since = undefined;
    }
    return mark(patch);
  }

  const redacted = obs.transcript === undefined ? undefined : redact(obs.transcript);
  return decideIdle({ task, obs, now, nowIso, w, key, patch, redacted });
}

/** `patch` collects mark changes as the steps run. */
type IdleCtx = {
  task: Task;
  obs: Extract<Observation, { kind: "idle" }>;
  now: number;
  nowIso: string;
  w: Windows;
  key: string;
  patch: Patch;
  redacted: string | undefined;
};

function decideIdle(c: IdleCtx): Action {
  const { task, obs, now, nowIso, w, patch, redacted } = c;
  const window = obs.transcript === undefined ? "" : finalTurnWindow(obs.transcript);
  const settleNotes = (status: string) => (obs.stability === "unstable" ? [notes.noteUnstable(status)] : obs.stability === "unreadable" ? [notes.noteUnreadable(status)] : []);

  const inProgress = turnInProgress(window);
  if (inProgress) return hold(c, inProgress);

  const answered = task.decision ? { question: task.decision.question, answered: Boolean(task.decision.answered_at) } : undefined;
  const question = needsDecision(window, answered);
  if (question) {
    if (!obs.stability) return { type: "stabilize", toward: "blocked" };
    const extra = settleNotes("blocked");
    return {
      type: "settle",
      to: "blocked",
      output: composeOutput(redacted, task.output, extra),
      decision: { question: redact(question), options: [], asked_at: nowIso, kind: "prose" },
      note: extra[0],
    };
  }

  const background = backgroundWork(window);
  if (background) return hold(c, background);
  if (task.held_running_since) patch.held_running_since = undefined;

  if (obs.completion) {
    if (!obs.stability) return { type: "stabilize", toward: "done" };
    const extra = settleNotes("done");
    return {
      type: "settle",
      to: "done",
      output: composeOutput(redacted, task.output, extra),
      note: extra[0],
      reportPath: obs.reportPath,
    };
  }

  if (obs.pause === "active") {
    if (!task.pause_seen_at) patch.pause_seen_at = nowIso;
    if (task.idle_unconfirmed_since) patch.idle_unconfirmed_since = undefined;
    return mark(patch);
  }

  if (!task.idle_unconfirmed_since) return mark({ ...patch, idle_unconfirmed_since: nowIso });
  if (since(now, task.idle_unconfirmed_since) < w.unconfirmedWindow) return mark(patch);
  const note = obs.pause === "stale" ? notes.NOTE_PAUSE_STALE : task.pause_seen_at ? notes.notePauseGone(task.pause_seen_at) : notes.NOTE_IDLE_NO_PAUSE;
  return { type: "settle", to: "unconfirmed", output: composeOutput(redacted, task.output, [note]), note };
}

/** SEN-13. */
function hold(c: IdleCtx, evidence: Evidence): Action {
  const { task, obs, now, nowIso, w, key, patch, redacted } = c;
  // The evidence explains the idle.
  if (task.idle_unconfirmed_since) patch.idle_unconfirmed_since = undefined;
  if (obs.pause === "active" && !task.pause_seen_at) patch.pause_seen_at = nowIso;
  if (!task.held_running_since) {
    patch.held_running_since = nowIso;
    return mark(patch, `sentinel: holding ${task.kind} ${task.id} (${key}) running - ${redact(evidence.text)}`);
  }
  if (since(now, task.held_running_since) < w.stillRunningLimit) return mark(patch);
  const note = notes.noteStillRunning(redact(evidence.text));
  return { type: "settle", to: "unconfirmed", output: composeOutput(redacted, task.output, [note]), note };
}
