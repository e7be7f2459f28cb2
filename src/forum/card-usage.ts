/**
 * The board's cost (FOR-09, TSK-13..14): each task's usage read by `cost/` as `vx status --json` reads it, kept per
 * task so a look at 200 tasks reads no transcript that cannot have changed: a finished task's until its file changes,
 * a running one's at most every `boardUsageFresh`.
 */
import { type UsageResult, type UsageTotal, campSuccessors, taskUsage, usageTotal } from "../cost";
import type { Env, ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { scaled } from "../time";

/** States whose soldier may still be spending (its records grow without its task file changing). */
const SPENDING = new Set(["running", "pending", "blocked", "unconfirmed"]);

type Entry = { version: string; at: number; usage: UsageResult; seen: number };

/** By project and task id; entries of tasks no longer listed are dropped at the next look of their project. */
export type UsageCache = Map<string, Entry>;

export function projectUsage(paths: ProjectPaths, tasks: readonly Task[], env: Env, cache: UsageCache, now: number): Record<string, UsageResult> {
  const until = campSuccessors(tasks);
  const fresh = scaled("boardUsageFresh", env);
  const out: Record<string, UsageResult> = {};
  for (const t of tasks) {
    const key = `${paths.key}\n${t.id}`;
    // The window's end is part of the version: a new task in the same camp closes this one's.
    const version = `${t.updated_at}|${until.get(t.id) ?? ""}`;
    const hit = cache.get(key);
    const stale = !hit || hit.version !== version || (SPENDING.has(t.status) && now - hit.at >= fresh);
    const entry: Entry = !stale && hit ? hit : { version, at: now, usage: taskUsage(paths, t, env, until.get(t.id)), seen: now };
    entry.seen = now;
    cache.set(key, entry);
    out[t.id] = entry.usage;
  }
  for (const [key, e] of cache) if (key.startsWith(`${paths.key}\n`) && e.seen !== now) cache.delete(key);
  return out;
}

/** TSK-14's total over every project's tasks. */
export function boardTotal(all: readonly Record<string, UsageResult>[]): UsageTotal {
  const merged: Record<string, UsageResult> = {};
  all.forEach((usage, i) => {
    for (const [id, u] of Object.entries(usage)) merged[`${i}:${id}`] = u;
  });
  return usageTotal(merged);
}
