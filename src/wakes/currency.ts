/**
 * The delivery-time currency filters (WAK-09, WAK-10): is this wake still news? Lookups are
 * injected so the rules stay testable; anything a lookup cannot determine counts as current,
 * because a redundant wake costs a glance while a lost one leaves a soldier waiting.
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

/** How the soldier filter reads the world; every lookup may be sync or async. */
export type CurrencyLookups = {
  /** The state root, to find an `origin` project's state dir. */
  root: string;
  /** The task in `stateDir`, or undefined when its file is gone. May throw (undeterminable). */
  loadTask(stateDir: string, id: string): MaybePromise<Task | undefined>;
  /** Ids leased in the pool of `stateDir`; undefined when the pool cannot be read. */
  leased(stateDir: string): MaybePromise<Set<string> | undefined>;
  /** The landed test of CMD-STRIKE-01 for the task's camp; undefined when git cannot tell. */
  isLanded(task: Task): MaybePromise<boolean | undefined>;
};

/** The lookups plus the state dir of the queue the wake was found in. */
export type CurrencyContext = CurrencyLookups & { stateDir: string };

/** WAK-09 routing: the task lives in `origin`'s state dir when set, else in the queue's own. */
function taskStateDir(wake: SoldierWake, ctx: Pick<CurrencyContext, "root" | "stateDir">): string {
  return wake.origin ? projectPaths(ctx.root, wake.origin).stateDir : ctx.stateDir;
}

/**
 * WAK-09: false (drop) when the task file is gone, its status moved on from `new_status`, its
 * camp is no longer leased to it (struck), or it is a mission `done` wake whose branch is already
 * landed in `camp_base`. Anything undeterminable counts as current.
 */
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
      // git trouble: cannot tell, so current
    }
  }
  return true;
}

/**
 * WAK-10: the number of unacknowledged messages in `forum-inbox/<session>/` (0 means drop). An
 * inbox that cannot be read, or holds a message file that cannot be parsed, keeps the wake's own
 * count; a missing inbox holds no messages.
 */
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

/** The real task lookup: `tasks/<id>.json` of `stateDir` (a corrupt file throws). */
export function loadTaskIn(stateDir: string, id: string): Task | undefined {
  return loadTask(stateDirPaths(stateDir), id)?.value;
}

/**
 * The real pool lookup: ids named by `leased_by` in `camps/pool.json`. A missing pool is treated
 * like an unreadable one: a task with a camp implies a pool existed, so its absence proves nothing.
 */
export function leasedIn(stateDir: string): Set<string> | undefined {
  try {
    return leasedIds(stateDirPaths(stateDir));
  } catch {
    return undefined;
  }
}
