/**
 * TSK-12: the state `vx status`, the board and the wakes show for a task. A mission whose work landed shows `landed`, a task
 * whose camp was struck `struck` (a done task without its camp lease counts: it was struck before `struck_at` was recorded);
 * anything else shows its status. Landed, struck and failed tasks leave `vx status`'s default view.
 */
import type { Task } from "./schemas";

export function shownState(t: Task, leased?: ReadonlySet<string>): string {
  if (t.landed_commit) return "landed";
  if (t.struck_at) return "struck";
  // A mirrored task's lease is on its machine; without a readable pool nothing is inferred.
  if (t.status === "done" && leased && t.camp_path && !t.machine && !leased.has(t.id)) return "struck";
  return t.status;
}

/** Out of the default view (`vx status --all` shows them): their work is in the base, thrown away, or never started. */
export function isPutAway(t: Task, leased?: ReadonlySet<string>): boolean {
  const shown = shownState(t, leased);
  return shown === "landed" || shown === "struck" || shown === "failed";
}
