/**
 * AWT-05/AWT-12: where only a model turn starts the next await, a quiet give-up would leave the
 * commander deaf, so its day ends with a short re-arm wake; others end quietly (`rearmsByTurn`).
 */
import { HARNESSES } from "../harnesses";
import { GUARDS, scaled } from "../time";

type Env = Record<string, string | undefined>;

export const REARM_TEXT = "vx: no news from soldiers or the forum for a day; this wake only re-arms the sentinel's listening hook. Nothing to do: end your turn without a reply.";

/** Whether the owner (AWT-06) re-arms only through a model turn, by its harness's rule. */
export function rearmsByTurn(ownerCommand: string, env: Env): boolean {
  return Object.values(HARNESSES).some((h) => h.commander.rearmsByTurn(ownerCommand, env));
}

/** Monotonic clock (TIME-02). */
export function listenDeadline(start: number, env: Env): number {
  return start + scaled("awaitGiveUp", env);
}

type AwaitStep = { kind: "wait"; ms: number } | { kind: "rearm" } | { kind: "end" };

export function nextStep(now: number, deadline: number, env: Env, byTurn: boolean): AwaitStep {
  if (now < deadline) {
    const poll = Math.max(scaled("awaitPoll", env), GUARDS.awaitPollFloor);
    return { kind: "wait", ms: Math.min(poll, deadline - now) };
  }
  return byTurn ? { kind: "rearm" } : { kind: "end" };
}
