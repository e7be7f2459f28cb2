/**
 * The guarded save (SEN-19 and its command-side twin): a write decided on one version of a task
 * lands only if the task still has that status and `updated_at`, so a concurrent sentinel, land,
 * strike or command is never overwritten. The sentinel, the quick-settle probe and every command
 * that settles a task write through here.
 */
import type { ProjectPaths } from "./paths";
import type { Task, TaskStatus } from "./schemas";
import { updateTask } from "./tasks";

/** The status and `updated_at` a write was decided on. */
export type Expected = { status: TaskStatus; updated_at: string };

/**
 * Writes `change(current)` only if the task on disk still matches `expected` (and `change` does
 * not return undefined). Returns the task as it is on disk afterwards and whether this write happened.
 */
export async function guardedUpdate(paths: ProjectPaths, id: string, expected: Expected, change: (current: Task) => Task | undefined): Promise<{ task: Task; written: boolean }> {
  let seen: Task | undefined;
  const written = await updateTask(paths, id, (cur) => {
    seen = cur;
    if (cur.status !== expected.status || cur.updated_at !== expected.updated_at) return undefined;
    return change(cur);
  });
  return written ? { task: written, written: true } : { task: seen as Task, written: false };
}

/** `guardedUpdate` with `patch` laid over the current task. */
export function guardedSave(paths: ProjectPaths, id: string, expected: Expected, patch: Partial<Task>): Promise<{ task: Task; written: boolean }> {
  return guardedUpdate(paths, id, expected, (cur) => ({ ...cur, ...patch }) as Task);
}
