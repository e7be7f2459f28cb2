/**
 * Codex: `<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-*.jsonl`, whose first line (`session_meta`) names the `cwd`; each
 * `token_count` event carries the session's running `total_token_usage`, so the last one in a file is its total.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Tally, type UsageQuery, type UsageResult, eachJsonLine, exists, firstJsonLine, home, inWindow, recentJsonl } from "./records";

export function codexSessionsDir(env: UsageQuery["env"]): string {
  return join(env.CODEX_HOME || join(home(env), ".codex"), "sessions");
}

/** The day folders from the day before the task's start (Codex names them by local time) to now. */
function dayDirs(root: string, since: number): string[] {
  const out: string[] = [];
  const pad = (n: number) => String(n).padStart(2, "0");
  let years: string[];
  try {
    years = readdirSync(root);
  } catch {
    return [];
  }
  const from = new Date(since - 86_400_000);
  const floor = `${from.getUTCFullYear()}/${pad(from.getUTCMonth() + 1)}/${pad(from.getUTCDate())}`;
  for (const y of years) {
    if (y < floor.slice(0, 4)) continue;
    for (const m of safeList(join(root, y))) {
      if (`${y}/${m}` < floor.slice(0, 7)) continue;
      for (const d of safeList(join(root, y, m))) if (`${y}/${m}/${d}` >= floor) out.push(join(root, y, m, d));
    }
  }
  return out;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export function codexUsage(q: UsageQuery): UsageResult {
  const root = codexSessionsDir(q.env);
  if (!exists(root)) return { unknown: `no Codex session found: ${root} does not exist` };
  const tally = new Tally();
  const files: string[] = [];
  let bad = 0;
  for (const day of dayDirs(root, q.since)) {
    for (const file of recentJsonl(day, q.since)) {
      const meta = firstJsonLine(file);
      const payload = meta?.payload as { cwd?: unknown; timestamp?: unknown } | undefined;
      if (meta?.type !== "session_meta" || payload?.cwd !== q.camp) continue;
      let last: Record<string, unknown> | undefined;
      bad += eachJsonLine(file, '"token_count"', (x) => {
        const p = x.payload as { type?: unknown; info?: { total_token_usage?: Record<string, unknown> } | null } | undefined;
        if (x.type === "event_msg" && p?.type === "token_count" && p.info?.total_token_usage && inWindow(q, x.timestamp)) last = p.info.total_token_usage;
      });
      if (!last) continue;
      files.push(file);
      // OpenAI counts cached input inside input_tokens; reasoning inside output_tokens.
      const cached = typeof last.cached_input_tokens === "number" ? last.cached_input_tokens : 0;
      tally.add({ input: (typeof last.input_tokens === "number" ? last.input_tokens : 0) - cached, output: last.output_tokens, cacheRead: cached, cacheWrite: last.cache_write_input_tokens });
    }
  }
  const why = bad > 0 ? `no readable usage in this camp's Codex rollouts (${bad} malformed line${bad === 1 ? "" : "s"})` : `no Codex rollout with token counts for this camp under ${root}`;
  return tally.result(files.length === 1 ? files[0]! : root, why);
}
