/**
 * Delivery-time currency filters (WAK-09, WAK-10). Anything undeterminable counts as current: a
 * redundant wake costs a glance, a lost one leaves a soldier waiting.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { isUnread } from "../forum/inbox";
import { readStateText } from "../state/files";
import { isSafeBaseName } from "../state/ids";
import { projectPaths, stateDirPaths } from "../state/paths";
import { leasedIds } from "../state/leases";
import type { ForumWake, SoldierWake, Task } from "../state/schemas";
import { loadTask } from "../state/tasks";

type MaybePromise<T> = T | Promise<T>;

export type CurrencyLookups = {
  root: string;
  /** Undefined when the file is gone; throws when undeterminable. */
  loadTask(stateDir: string, id: string): MaybePromise<Task | undefined>;
  /** Undefined when the pool cannot be read. */
  leased(stateDir: string): MaybePromise<Set<string> | undefined>;
  /** The landed test of CMD-STRIKE-01; undefined when git cannot tell. */
  isLanded(task: Task): MaybePromise<boolean | undefined>;
};

/** `stateDir`: the queue's own. */
export type CurrencyContext = CurrencyLookups & { stateDir: string };

/** WAK-09 routing: `origin`'s state dir when set. */
function taskStateDir(wake: SoldierWake, ctx: Pick<CurrencyContext, "root" | "stateDir">): string {
  return wake.origin ? projectPaths(ctx.root, wake.origin).stateDir : ctx.stateDir;
}

/** WAK-09: drop when the task is gone, moved on, struck, or a mission `done` already landed (recorded by land, or found by git). */
export async function soldierWakeCurrent(wake: SoldierWake, ctx: CurrencyContext): Promise<boolean> {
  const dir = taskStateDir(wake, ctx);
  let task: Task | undefined;
  try {
    task = await ctx.loadTask(dir, wake.task_id);
  } catch {
    return true;
  }
  if (!task) return false;
  if (task.status !== wake.new_status) return false;
  // TSK-12: land and strike record themselves, so a landed or struck task is told apart without the pool or git (a mirror too).
  if (task.landed_commit || task.struck_at) return false;
  if (task.camp_path) {
    let leased: Set<string> | undefined;
    try {
      leased = await ctx.leased(dir);
    } catch {
      leased = undefined;
    }
    if (leased && !leased.has(task.id)) return false;
  }
  if (wake.kind === "mission" && wake.new_status === "done" && task.camp_branch && task.camp_base) {
    try {
      if ((await ctx.isLanded(task)) === true) return false;
    } catch {
      // cannot tell, so current
    }
  }
  return true;
}

/** WAK-10: unacknowledged messages in the session's inbox (0: drop); an unreadable inbox keeps the wake's count. */
export function forumWakeCurrent(wake: ForumWake, inboxDir: string): number {
  if (!isSafeBaseName(wake.session)) return 0;
  const dir = join(inboxDir, wake.session);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? 0 : wake.count;
  }
  let unread = 0;
  for (const name of names) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    let msg: unknown;
    try {
      const text = readStateText(join(dir, name));
      if (text === undefined) continue; // acked and removed meanwhile
      msg = JSON.parse(text);
    } catch {
      return wake.count;
    }
    if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return wake.count;
    if (isUnread(msg as Record<string, unknown>)) unread++;
  }
  return unread;
}

/** A corrupt file throws. */
export function loadTaskIn(stateDir: string, id: string): Task | undefined {
  return loadTask(stateDirPaths(stateDir), id)?.value;
}

/** A missing pool counts as unreadable: a task with a camp implies a pool existed, so its absence proves nothing. */
export function leasedIn(stateDir: string): Set<string> | undefined {
  try {
    return leasedIds(stateDirPaths(stateDir));
  } catch {
    return undefined;
  }
}
