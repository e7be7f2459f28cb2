/**
 * TSK-07's launch failure, in one place: the `[vexillum] <reason> - marked failed.` note and the
 * guarded save that records it. Dispatch's launchers, the leftover sweep and camp setup all fail a
 * task this way, so the note reads the same whoever wrote it.
 */
import { guardedSave } from "./guarded";
import type { ProjectPaths } from "./paths";
import type { Task } from "./schemas";
import { EPISODE_CLEARS, composeOutput } from "./tasks";
import { isoTime } from "../time";

/** The note; `more` follows after a semicolon instead of the closing full stop. */
export function failedNote(reason: string, more?: string): string {
  return `[vexillum] ${reason} - marked failed${more ? `; ${more}` : "."}`;
}

type FailOptions = {
  /** Fields saved with the failure (an agent name the launch used, ...). */
  extra?: Partial<Task>;
  /** Text after the note's "marked failed". */
  more?: string;
  /** What the output holds above the note: by default the task's own output. */
  body?: string;
};

/**
 * Saves `task` failed with the note, guarded on the state it was decided on. Returns the task as it
 * is on disk afterwards and whether this write happened (a strike or another command may have won).
 */
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
