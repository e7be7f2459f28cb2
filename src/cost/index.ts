/** TSK-13..14: each task's usage read by its harness's module, the project's total, and the status line. */
import { hooksDir } from "../backends/soldier-env";
import { errorMessage } from "../errors";
import { harnessOf } from "../harnesses";
import { type Tokens, type UsageResult, isKnown } from "../harnesses/usage/records";
import type { Env, ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";

export type { Usage, UsageResult, UsageUnknown } from "../harnesses/usage/records";
export { isKnown } from "../harnesses/usage/records";

/** When the next task took the same camp: the end of this task's window there. */
export function campSuccessors(tasks: readonly Task[]): Map<string, number> {
  const out = new Map<string, number>();
  const byCamp = new Map<string, Task[]>();
  for (const t of tasks) if (t.camp_path) byCamp.set(t.camp_path, [...(byCamp.get(t.camp_path) ?? []), t]);
  for (const list of byCamp.values()) {
    list.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
    for (let i = 0; i + 1 < list.length; i++) out.set(list[i]!.id, Date.parse(list[i + 1]!.created_at));
  }
  return out;
}

/**
 * TSK-13: every task's usage by id, read from where its harness keeps it under `env` (the soldiers inherit the
 * dispatcher's). Never throws: an unreadable record is an `unknown` with its reason. The board can call this too.
 */
export function tasksUsage(paths: ProjectPaths, tasks: readonly Task[], env: Env): Record<string, UsageResult> {
  const until = campSuccessors(tasks);
  const out: Record<string, UsageResult> = {};
  for (const t of tasks) out[t.id] = taskUsage(paths, t, env, until.get(t.id));
  return out;
}

export function taskUsage(paths: ProjectPaths, t: Task, env: Env, until = Number.POSITIVE_INFINITY): UsageResult {
  if (t.machine) return { unknown: `runs on machine ${t.machine}, whose records stay there` };
  if (!t.camp_path) return { unknown: "no camp recorded for this task" };
  const since = Date.parse(t.created_at);
  try {
    return harnessOf(t.harness).usage({
      taskId: t.id,
      camp: t.camp_path,
      since: Number.isNaN(since) ? 0 : since,
      until,
      hooksDir: hooksDir(paths, t.id),
      env,
    });
  } catch (err) {
    return { unknown: `unreadable: ${errorMessage(err)}` };
  }
}

export type UsageTotal = Required<Omit<Tokens, "cost_usd">> & { cost_usd?: number; tasks_known: number; tasks_unknown: number };

/** TSK-14: the known tasks summed; `cost_usd` only when every known task had one. */
export function usageTotal(all: Readonly<Record<string, UsageResult>>): UsageTotal {
  const total: UsageTotal = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, tasks_known: 0, tasks_unknown: 0 };
  let cost: number | undefined = 0;
  for (const u of Object.values(all)) {
    if (!isKnown(u)) {
      total.tasks_unknown++;
      continue;
    }
    total.tasks_known++;
    total.input_tokens += u.input_tokens;
    total.output_tokens += u.output_tokens;
    total.cache_read_tokens += u.cache_read_tokens ?? 0;
    total.cache_write_tokens += u.cache_write_tokens ?? 0;
    cost = cost !== undefined && u.cost_usd !== undefined ? cost + u.cost_usd : undefined;
  }
  if (total.tasks_known > 0 && cost !== undefined) total.cost_usd = Math.round(cost * 1e6) / 1e6;
  return total;
}

function count(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1)}M`;
}

/** TSK-15: `    cost: <in> in, <out> out[, <read> cache read][, <write> cache write][, $<usd>]`, only for a known usage. */
export function usageLine(u: UsageResult | undefined): string | undefined {
  if (!u || !isKnown(u)) return undefined;
  const parts = [`${count(u.input_tokens)} in`, `${count(u.output_tokens)} out`];
  if (u.cache_read_tokens) parts.push(`${count(u.cache_read_tokens)} cache read`);
  if (u.cache_write_tokens) parts.push(`${count(u.cache_write_tokens)} cache write`);
  if (u.cost_usd !== undefined) parts.push(`$${u.cost_usd.toFixed(2)}`);
  return `    cost: ${parts.join(", ")}`;
}
