/**
 * CMD-DISPATCH-04's report of a launch. The launches themselves are the backends'
 * (`backends/herdr-launch.ts`, `backends/tmux-launch.ts`); their result and a relaunch's arguments
 * are declared with the terminal interface (`backends/terminal-types.ts`).
 */
import type { LaunchResult } from "../backends/terminal-types";
import type { Deps } from "../deps";

export type { LaunchResult, Relaunch } from "../backends/terminal-types";

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
