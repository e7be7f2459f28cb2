/**
 * The quick-settle probe's judgement (CMD-DISPATCH-06), for dispatch, prompt and decide on either
 * backend: after a prompt's bounded wait, settle what is already certain and leave everything else
 * to the sentinel. It reuses the sentinel's own decision with windows that never run out, so steps
 * 6 and 7 of SEN-11 (pauses, the unconfirmed window) and the still-running limit can never fire
 * here: a probe never marks `unconfirmed` and never writes a wake (WAK-13). The terminals get it
 * as `LifecycleRules.judge` (`soldiers/terminal.ts`); herdr's probe is `backends/herdr/launch.ts`'s
 * `quickSettle`, tmux's that launch's `probe`.
 */
import { isIdleStatus } from "../backends/agents";
import type { Sighting } from "../backends/types";
import type { SettleCtx, Settlement } from "../backends/terminal-types";
import { type Observation, type Windows, decide } from "../lifecycle/decide";
import { completion, stabilize } from "../lifecycle/observe";
import type { Task } from "../state/schemas";
import { SETTLE_CLEARS } from "../state/tasks";
import { isoTime } from "../time";

const RUNNING: Settlement = { status: "running", fields: {} };

// No grace (the command just delivered the prompt itself) and no window that can expire.
const PROBE_WINDOWS: Windows = {
  settleGrace: Number.NEGATIVE_INFINITY,
  notFoundWindow: Number.POSITIVE_INFINITY,
  unconfirmedWindow: Number.POSITIVE_INFINITY,
  stillRunningLimit: Number.POSITIVE_INFINITY,
};

/**
 * Judges what the backend shows now: a `blocked` soldier settles blocked (SEN-10); an idle one
 * goes through SEN-11 steps 1-5: a turn in progress or background work stays running, a
 * needs-decision line settles blocked with a prose decision and a completion signal settles done,
 * both after stabilizing.
 */
export async function settleSeen(ctx: SettleCtx, task: Task, soldier: Sighting): Promise<Settlement> {
  const { status, read } = soldier;
  let obs: Observation;
  if (status === "blocked") {
    obs = { kind: "blocked", transcript: await read(), visible: await soldier.readVisible() };
  } else if (isIdleStatus(status)) {
    const signal = await completion(ctx.paths, task, ctx.exec);
    obs = { kind: "idle", transcript: await read(), completion: signal.signal, reportPath: signal.reportPath, pause: "none" };
  } else {
    return RUNNING;
  }
  let action = decide(task, obs, ctx.clock.now(), PROBE_WINDOWS, ctx.paths.key);
  if (action.type === "stabilize" && obs.kind === "idle") {
    const s = await stabilize(obs.transcript, read, ctx);
    obs = { ...obs, transcript: s.transcript, stability: s.stability };
    action = decide(task, obs, ctx.clock.now(), PROBE_WINDOWS, ctx.paths.key);
  }
  if (action.type !== "settle" || (action.to !== "done" && action.to !== "blocked")) return RUNNING;
  const fields: Partial<Task> = {
    status: action.to,
    updated_at: isoTime(ctx.clock.now()),
    output: action.output,
    ...SETTLE_CLEARS,
  };
  if (action.decision) fields.decision = action.decision;
  return { status: action.to, fields };
}

// The guarded save moved to state/guarded.ts; launch, leftovers, decide and setup import it from here.
