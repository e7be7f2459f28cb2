/** A launch that died part-way (kill -9 of dispatch): a task left `pending`, maybe a tab or session it never recorded. */
import { errorMessage } from "../errors";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { isTaskBusy } from "../state/tasks";
import { markFailed } from "../state/mark-failed";
import type { Backend, BackendDeps } from "./backend";
import { backendFor } from "./index";
import { removeLaunchFiles } from "./soldier-env";

/** The reason a launch whose command died is failed with (TSK-07 note `... - marked failed.`). */
export const ABANDONED_REASON = "the command launching this soldier stopped before it finished";

/** A `pending` task no command is working on: its launch died, and nobody else will finish it. */
export function isAbandonedLaunch(paths: ProjectPaths, task: Task): boolean {
  return task.status === "pending" && !isTaskBusy(paths, task.id);
}

/** T3 for a dead launch: leftovers closed (what cannot be asked about is left to strike), task `failed`, lease kept for strike. */
export async function failAbandonedLaunch(
  ctx: { paths: ProjectPaths; deps: BackendDeps; now: number; closeLeft?: Backend["closeLeft"] },
  task: Task,
): Promise<{ failed: boolean; closed: string[]; error?: string }> {
  let closed: string[] = [];
  let error: string | undefined;
  try {
    closed = await (ctx.closeLeft ?? backendFor(task).closeLeft)(ctx.deps, task);
  } catch (err) {
    error = errorMessage(err);
  }
  // Checked again: a strike may have taken the task while its backend was being asked.
  if (isTaskBusy(ctx.paths, task.id)) return { failed: false, closed, error };
  // Its env copy holds API keys; removed while still pending, so no relaunch has written a new one yet.
  removeLaunchFiles(ctx.paths, task.id);
  const saved = await markFailed(ctx.paths, task, ABANDONED_REASON, ctx.now);
  return { failed: saved.written, closed, error };
}
