/**
 * AWT-05/AWT-12: how long an await listens, and what it does at its limit. Claude Code runs a new
 * Stop hook (a new await) only after a model turn, and kills the hook at its `timeout`; an await
 * that simply gave up would leave an idle commander deaf until the general types again. So an
 * await owned by Claude Code ends its day with one short re-arm wake: one model turn, whose Stop
 * starts the next day's await. Harnesses whose extension or plugin starts a new await itself on a
 * quiet exit end quietly and cost no turn. Which is which is each harness module's `rearmsByTurn`.
 */
import { HARNESSES } from "../harnesses";
import { GUARDS, scaled } from "../time";

type Env = Record<string, string | undefined>;

/** The re-arm wake's text: a short turn that asks for nothing. */
export const REARM_TEXT = "vx: no news from soldiers or the forum for a day; this wake only re-arms the sentinel's listening hook. Nothing to do: end your turn without a reply.";

/** Whether the await's owner (AWT-06) re-arms it only through a model turn, by its harness's own rule. */
export function rearmsByTurn(ownerCommand: string, env: Env): boolean {
  return Object.values(HARNESSES).some((h) => h.commander.rearmsByTurn(ownerCommand, env));
}

/** The moment an await started at `start` stops listening, both on the monotonic clock (TIME-02). */
export function listenDeadline(start: number, env: Env): number {
  return start + scaled("awaitGiveUp", env);
}

type AwaitStep = { kind: "wait"; ms: number } | { kind: "rearm" } | { kind: "end" };

/**
 * After a poll found nothing: wait for the next poll (never shorter than the floor, never past the
 * deadline); at the deadline, re-arm (a turn-armed owner) or end quietly.
 */
export function nextStep(now: number, deadline: number, env: Env, byTurn: boolean): AwaitStep {
  if (now < deadline) {
    const poll = Math.max(scaled("awaitPoll", env), GUARDS.awaitPollFloor);
    return { kind: "wait", ms: Math.min(poll, deadline - now) };
  }
  return byTurn ? { kind: "rearm" } : { kind: "end" };
}
