/** The guarded save (SEN-19): a write lands only if the task still has the status and `updated_at` it was decided on, so no concurrent writer is overwritten. */
import type { ProjectPaths } from "./paths";
import type { Task, TaskStatus } from "./schemas";
import { updateTask } from "./tasks";

export type Expected = { status: TaskStatus; updated_at: string };

/** Returns the task as on disk afterwards and whether this write happened. */
export async function guardedUpdate(paths: ProjectPaths, id: string, expected: Expected, change: (current: Task) => Task | undefined): Promise<{ task: Task; written: boolean }> {
  let seen: Task | undefined;
  const written = await updateTask(paths, id, (cur) => {
    seen = cur;
    if (cur.status !== expected.status || cur.updated_at !== expected.updated_at) return undefined;
    return change(cur);
  });
  return written ? { task: written, written: true } : { task: seen as Task, written: false };
}

export function guardedSave(paths: ProjectPaths, id: string, expected: Expected, patch: Partial<Task>): Promise<{ task: Task; written: boolean }> {
  return guardedUpdate(paths, id, expected, (cur) => ({ ...cur, ...patch }) as Task);
}
