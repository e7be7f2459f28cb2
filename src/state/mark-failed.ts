/** TSK-07's launch failure in one place, so the note reads the same whoever wrote it. */
import { guardedSave } from "./guarded";
import type { ProjectPaths } from "./paths";
import type { Task } from "./schemas";
import { EPISODE_CLEARS, composeOutput } from "./tasks";
import { isoTime } from "../time";

/** `more` follows after a semicolon instead of the full stop. */
export function failedNote(reason: string, more?: string): string {
  return `[vexillum] ${reason} - marked failed${more ? `; ${more}` : "."}`;
}

type FailOptions = {
  extra?: Partial<Task>;
  more?: string;
  /** Above the note; by default the task's own output. */
  body?: string;
};

/** Guarded: a strike or another command may have won. */
export function markFailed(paths: ProjectPaths, task: Task, reason: string, now: number, o: FailOptions = {}): Promise<{ task: Task; written: boolean }> {
  const previous = "body" in o ? undefined : task.output;
  return guardedSave(paths, task.id, task, {
    ...o.extra,
    ...EPISODE_CLEARS,
    status: "failed",
    updated_at: isoTime(now),
    output: composeOutput(o.body, previous, [failedNote(reason, o.more)]),
  });
}
