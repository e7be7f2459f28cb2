/**
 * TSK-06: the amendments a task records of what it was told after its dispatch (`vx prompt`,
 * `vx decide`, `vx resume`).
 */
import type { ProjectPaths } from "../state/paths";
import type { Amendment, Task } from "../state/schemas";
import { updateTask } from "../state/tasks";

const AMENDMENT_MAX_CHARS = 2000;
const AMENDMENTS_KEPT = 20;

/** TSK-06: trimmed, capped at 2000 characters (then ` [truncated]`). */
function amendmentText(text: string): string {
  const chars = Array.from(text.trim());
  return chars.length > AMENDMENT_MAX_CHARS ? `${chars.slice(0, AMENDMENT_MAX_CHARS).join("")} [truncated]` : chars.join("");
}

/** The amendments with one more appended; only the newest 20 are kept. */
export function withAmendment(list: Amendment[] | undefined, text: string, source: Amendment["source"], at: string): Amendment[] {
  return [...(list ?? []), { text: amendmentText(text), at, source }].slice(-AMENDMENTS_KEPT);
}

/**
 * Appends an amendment whatever the task's status is now: the text did reach the soldier, even
 * if the sentinel settled the task meanwhile. Returns the task as saved.
 */
export async function addAmendment(paths: ProjectPaths, id: string, patch: (cur: Task) => Partial<Task>): Promise<Task> {
  return (await updateTask(paths, id, (cur) => ({ ...cur, ...patch(cur) }) as Task)) as Task;
}
