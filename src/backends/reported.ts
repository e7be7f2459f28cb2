import { errorMessage } from "../errors";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { DELIVERING, readSoldierState } from "../state/soldier-state";

/**
 * TMX-05: the latest `vx report` as herdr's status. None on a running task is judged as idle (SEN-11): the launch reports before
 * its prompt, so it means a failed write (CMD-REPORT-03) or a dead launch. Only a `working` newer than `updated_at` reopens.
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
