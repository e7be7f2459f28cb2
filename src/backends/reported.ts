/**
 * A soldier's status from its own reports (TMX-05): what a backend without an agent list of its own
 * (tmux) reads as the status herdr would have given.
 */
import { errorMessage } from "../errors";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { DELIVERING, readSoldierState } from "../state/soldier-state";

/**
 * TMX-05: the latest `vx report` as herdr's status. A running task without one is judged from its
 * pane as an idle one is (SEN-11: work in progress holds it, a question blocks it): the launch
 * writes a report before its prompt goes in, under the task's lock the pass passes over, so none
 * means a report that could not be written took the stale one away (CMD-REPORT-03, a full disk),
 * or a launch died before its prompt. A finished task goes back to running only on a `working`
 * report newer than its `updated_at` (the reopen rule), never on an older one.
 */
export function reportedStatus(task: Task, paths: ProjectPaths): { status: string; problem?: string } {
  let report: ReturnType<typeof readSoldierState>;
  try {
    report = readSoldierState(paths, task.id);
  } catch (err) {
    // A corrupt report says nothing, never success (HRD-06); the soldier's next report replaces it.
    return { status: "unknown", problem: errorMessage(err) };
  }
  if (!report) return { status: task.status === "running" ? "idle" : "unknown" };
  // A delivery that died before its Enter (the sentinel judges no task a command holds).
  if (report.source === DELIVERING) return { status: "idle" };
  if (task.status !== "running" && report.state === "working" && Date.parse(report.at) <= Date.parse(task.updated_at)) return { status: "idle" };
  return { status: report.state };
}
