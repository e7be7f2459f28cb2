/**
 * CMD-DISPATCH-04's report of a launch. The launches themselves are the backends'
 * (`backends/herdr/launch.ts`, `backends/tmux/launch.ts`); their result and a relaunch's arguments
 * are declared with the terminal interface (`backends/terminal-types.ts`).
 */
import { backendFor } from "../backends";
import type { LaunchResult } from "../backends/terminal-types";
import type { Deps } from "../deps";
import type { Task } from "../state/schemas";
import { nominalSeconds } from "../time";

/** CMD-DISPATCH-04's first line: the task and its camp, known before its soldier starts. */
function launchHead(t: Task): string {
  return `task_id=${t.id} kind=${t.kind} camp_slot=${t.camp_slot ?? ""} camp_branch=${t.camp_branch ?? ""}\n`;
}

/**
 * Printed the moment the task and its camp exist: the id at once, and on a terminal what the
 * command now waits for (a harness's start and the quick-settle probe take seconds).
 */
export function announceLaunch(deps: Deps, t: Task): void {
  deps.stdout.write(launchHead(t));
  if (!deps.progress) return;
  const waitS = nominalSeconds("harnessReady") + nominalSeconds("quickSettle");
  deps.stderr.write(`vx: camp ${t.camp_path ?? ""} ready; starting ${t.harness ?? ""} on ${t.backend ?? ""}, then watching it take the prompt (up to ${waitS}s)\n`);
}

/** CMD-DISPATCH-04's stdout (after `launchHead`, unless `headed` says it went out already), then the failure on stderr; returns the exit code. */
export function reportLaunch(deps: Deps, result: LaunchResult, headed = false): number {
  const t = result.task;
  const lines = [...(headed ? [] : [launchHead(t).trimEnd()]), `status=${t.status}`];
  const where = backendFor(t).launchLine(t);
  if (where) lines.push(where);
  if (t.status === "running") lines.push("still running past the quick-settle probe - the sentinel will record its final status");
  else if (!result.error && t.status !== "failed") lines.push("output:", t.output ?? "");
  deps.stdout.write(`${lines.join("\n")}\n`);
  if (result.error || t.status === "failed") {
    deps.stderr.write(`vx: ${result.error ?? `task ${t.id} failed to launch`}\n`);
    return 1;
  }
  return 0;
}
