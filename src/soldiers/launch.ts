/**
 * What the launches of both backends share: the harness's own arguments (HRD-04), the result of a
 * launch and CMD-DISPATCH-04's report of it. The herdr launch is `backends/herdr-launch.ts`, the tmux
 * launch `backends/tmux-launch.ts`.
 */
import type { Deps } from "../deps";
import { type HarnessName, harnessOf } from "../harnesses";
import type { Task } from "../state/schemas";

/** HRD-04: the harness's own arguments, with model and effort only when set. */
export function harnessArgs(harness: HarnessName, model?: string, effort?: string): string[] {
  return harnessOf(harness).soldierArgs(model, effort);
}

/**
 * A relaunch by `vx resume` (CMD-RESUME-01): arguments put before the harness's own (its continue
 * flag) and the text submitted instead of the dispatch text.
 */
export type Relaunch = { args: string[]; text: string };

/** The task as saved at the end, and why it failed when it did. */
export type LaunchResult = { task: Task; error?: string };

/** CMD-DISPATCH-04's stdout, then the failure on stderr; returns the exit code. */
export function reportLaunch(deps: Deps, result: LaunchResult): number {
  const t = result.task;
  const lines = [`task_id=${t.id} kind=${t.kind} camp_slot=${t.camp_slot ?? ""} camp_branch=${t.camp_branch ?? ""}`, `status=${t.status}`];
  if (t.herdr_pane_id) {
    lines.push(`herdr: workspace=${t.herdr_workspace_id ?? ""} tab=${t.herdr_tab_id ?? ""} pane=${t.herdr_pane_id} agent=${t.herdr_agent_name ?? ""}`);
  } else if (t.tmux_target && t.status !== "failed") {
    lines.push(`tmux: session=${t.tmux_target} cwd=${t.camp_path ?? ""} branch=${t.camp_branch ?? ""} gate=ok`);
  }
  if (t.status === "running") lines.push("still running past the quick-settle probe - the sentinel will record its final status");
  else if (!result.error && t.status !== "failed") lines.push("output:", t.output ?? "");
  deps.stdout.write(`${lines.join("\n")}\n`);
  if (result.error || t.status === "failed") {
    deps.stderr.write(`vx: ${result.error ?? `task ${t.id} failed to launch`}\n`);
    return 1;
  }
  return 0;
}
