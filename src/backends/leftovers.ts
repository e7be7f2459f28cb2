/**
 * What a launch that died part-way leaves behind (kill -9 of `vx dispatch` or `vx redispatch`):
 * a task still `pending` with no command working on it, and possibly a tab or session it created
 * but never recorded, which its backend finds again from what the launch noted first.
 */
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

/**
 * Settles an abandoned launch as T3 on behalf of its dead command: what it left unrecorded closed
 * by its backend, its launch files removed, the task `failed` with its lease kept (so `vx strike`
 * returns the camp).
 * A tab or session that could not be asked about is left to strike, which looks again. Returns
 * what it did, for the log.
 */
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
  // The copy of the dispatcher's environment (API keys included) the dead launch wrote for its
  // pane's launcher, which never ran (or ran and removed it), and its launcher script. Removed
  // while the task is still pending, so no relaunch can have written a new one yet.
  removeLaunchFiles(ctx.paths, task.id);
  const saved = await markFailed(ctx.paths, task, ABANDONED_REASON, ctx.now);
  return { failed: saved.written, closed, error };
}
