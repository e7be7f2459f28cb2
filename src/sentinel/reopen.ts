/** SEN-20: a finished soldier shown working again (someone typed into its pane) goes back to running, with no wake. */
import type { Sighting } from "../backends/types";
import { backendFor } from "../backends";
import type { Task } from "../state/schemas";
import { guardedUpdate } from "../state/guarded";
import { EPISODE_CLEARS } from "../state/tasks";
import { isoTime } from "../time";
import type { ApplyCtx } from "./apply";

const REOPENABLE = new Set(["done", "blocked", "unconfirmed", "shipped"]);

export function isReopenCandidate(task: Task): boolean {
  if (!REOPENABLE.has(task.status)) return false;
  return backendFor(task).recorded(task);
}

export async function reopenIfWorking(ctx: ApplyCtx, task: Task, soldier: Sighting | undefined): Promise<boolean> {
  if (soldier?.status !== "working") return false;
  const nowIso = isoTime(ctx.now);
  const { written } = await guardedUpdate(ctx.paths, task.id, task, (cur) => {
    const next: Task = {
      ...cur,
      status: "running",
      updated_at: nowIso,
      ...EPISODE_CLEARS,
    };
    if (cur.status === "blocked" && cur.decision) {
      next.decision = { ...cur.decision, answered_at: nowIso, answer: "(answered in the pane)" };
    }
    return next;
  });
  if (!written) return false;
  ctx.log(`sentinel: reopened ${task.kind} ${task.id} (${ctx.paths.key}): ${task.status} -> running (soldier working again)`);
  return true;
}
