/**
 * Claude Code: `<config dir>/projects/<cwd, every non-alphanumeric as ->/<session>.jsonl`. Assistant lines carry
 * `message.usage`; a `cost-state` line holds the process's running `totalCostUSD` (since its `startTime`).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Tally, type UsageQuery, type UsageResult, eachJsonLine, exists, home, inWindow, isKnown, recentJsonl } from "./records";

export function claudeProjectsDir(env: UsageQuery["env"]): string {
  return join(env.CLAUDE_CONFIG_DIR || join(home(env), ".claude"), "projects");
}

/** Its folder name for a cwd; a name over 200 characters is cut and given a hash suffix, so those are matched by prefix. */
function folders(projects: string, camp: string): string[] {
  const name = camp.replace(/[^a-zA-Z0-9]/g, "-");
  if (name.length <= 200) return [join(projects, name)];
  try {
    return readdirSync(projects)
      .filter((n) => n.startsWith(`${name.slice(0, 200)}-`))
      .map((n) => join(projects, n));
  } catch {
    return [];
  }
}

/**
 * A session's money: the last `cost-state` of its one process. With several processes in one file (a continued
 * session) or a model of unknown price, undefined: whether a continued process starts its total afresh is not known.
 */
function fileCost(states: Map<number, Record<string, unknown>>): number | undefined {
  if (states.size !== 1) return undefined;
  const s = [...states.values()][0]!;
  return s.hasUnknownModelCost !== true && typeof s.totalCostUSD === "number" ? s.totalCostUSD : undefined;
}

export function claudeUsage(q: UsageQuery): UsageResult {
  const projects = claudeProjectsDir(q.env);
  const dirs = folders(projects, q.camp).filter(exists);
  if (dirs.length === 0) return { unknown: `no Claude Code session found for this camp under ${projects}` };
  const tally = new Tally();
  // One API message is written as several lines (one per content block), each with the same usage: counted once by id.
  const seen = new Set<string>();
  let bad = 0;
  let cost: number | undefined = 0;
  for (const dir of dirs) {
    for (const file of recentJsonl(dir, q.since)) {
      const before = tally.records;
      const states = new Map<number, Record<string, unknown>>();
      bad += eachJsonLine(file, ['"usage"', '"cost-state"'], (x) => {
        if (x.type === "cost-state" && typeof x.startTime === "number" && inWindow(q, x.startTime)) states.set(x.startTime, x);
        if (x.type !== "assistant" || (typeof x.cwd === "string" && x.cwd !== q.camp) || !inWindow(q, x.timestamp)) return;
        const m = x.message as { id?: unknown; usage?: Record<string, unknown> } | undefined;
        const u = m?.usage;
        if (!u || typeof u !== "object") return;
        const id = typeof m.id === "string" ? m.id : undefined;
        if (id) {
          if (seen.has(id)) return;
          seen.add(id);
        }
        tally.add({ input: u.input_tokens, output: u.output_tokens, cacheRead: u.cache_read_input_tokens, cacheWrite: u.cache_creation_input_tokens });
      });
      if (tally.records === before) continue;
      const c = fileCost(states);
      cost = cost !== undefined && c !== undefined ? cost + c : undefined;
    }
  }
  const why =
    bad > 0 ? `no readable usage in this camp's Claude Code sessions (${bad} malformed line${bad === 1 ? "" : "s"})` : "no usage recorded in this camp's Claude Code sessions since the task started";
  const out = tally.result(dirs.length === 1 ? dirs[0]! : projects, why);
  if (!isKnown(out) || cost === undefined) return out;
  const { source, ...tokens } = out;
  return { ...tokens, cost_usd: Math.round(cost * 1e6) / 1e6, source };
}
