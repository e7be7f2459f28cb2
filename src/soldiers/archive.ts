/**
 * CMD-ARCHIVE-01: finished tasks taken off the troop's list. A task file moves, whole and
 * unchanged, into `tasks/archive/` (which no listing reads); nothing is ever deleted, and only a
 * task that is finished and holds no camp moves, under its operation lock.
 */
import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { leasedTasks } from "../camps/pool";
import { VxError } from "../errors";
import { ensureStateDir } from "../state/files";
import type { ProjectPaths } from "../state/paths";
import type { Task, TaskStatus } from "../state/schemas";
import { listTasks, requireTask, taskPath, withTaskOp } from "../state/tasks";

/** The statuses a task never leaves by itself: landed or struck missions, reported scouts, failed launches. */
const FINISHED: readonly TaskStatus[] = ["done", "failed", "shipped"];

export function archiveDir(paths: ProjectPaths): string {
  return join(paths.tasksDir, "archive");
}

/** Why `task` cannot be archived now, or undefined when it can. */
function archiveRefusal(task: Task, leased: ReadonlySet<string>): string | undefined {
  if (!FINISHED.includes(task.status)) {
    return `task ${task.id} is ${task.status} - only a done, failed or shipped task is archived (land, strike or wait for it first)`;
  }
  if (leased.has(task.id)) return `task ${task.id} still holds its camp - strike it first (vx strike ${task.id}), then archive it`;
  return undefined;
}

/** Moves one task's file into the archive; throws the refusal when it may not move. */
export async function archiveTask(paths: ProjectPaths, id: string): Promise<void> {
  await withTaskOp(paths, id, async () => {
    const why = archiveRefusal(requireTask(paths, id), leasedTasks(paths));
    if (why) throw new VxError(why);
    const dir = archiveDir(paths);
    ensureStateDir(paths.root, dir);
    const dest = join(dir, `${id}.json`);
    // An archived copy is never overwritten: a task id is never reused, so one there is a puzzle to look at.
    if (existsSync(dest)) throw new VxError(`task ${id} is already in ${dir} - move one of the two copies away by hand`);
    renameSync(taskPath(paths, id), dest);
  });
}

/** The finished tasks that can go now, and those kept because they still hold a camp. */
export function finishedTasks(paths: ProjectPaths): { movable: string[]; holding: string[] } {
  const leased = leasedTasks(paths);
  const finished = listTasks(paths)
    .map((t) => t.value)
    .filter((t) => FINISHED.includes(t.status));
  return {
    movable: finished.filter((t) => !archiveRefusal(t, leased)).map((t) => t.id),
    holding: finished.filter((t) => leased.has(t.id)).map((t) => t.id),
  };
}
