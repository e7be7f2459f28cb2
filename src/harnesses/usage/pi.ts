/** Pi: `<agent dir>/sessions/--<cwd, / and : as ->--/*.jsonl`, `message.usage` (with `cost.total`) on assistant messages. */
import { join } from "node:path";
import { Tally, type UsageQuery, type UsageResult, eachJsonLine, exists, home, inWindow, recentJsonl } from "./records";

export function piSessionDir(q: UsageQuery): string {
  const env = q.env;
  const dir = env.PI_CODING_AGENT_DIR;
  const agent = dir ? (dir.startsWith("~") ? join(home(env), dir.slice(1)) : dir) : join(home(env), ".pi", "agent");
  return join(agent, "sessions", `--${q.camp.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);
}

export function piUsage(q: UsageQuery): UsageResult {
  const dir = piSessionDir(q);
  if (!exists(dir)) return { unknown: `no Pi session found for this camp (${dir})` };
  const tally = new Tally();
  let bad = 0;
  for (const file of recentJsonl(dir, q.since)) {
    bad += eachJsonLine(file, '"usage"', (x) => {
      const m = x.message as { role?: unknown; usage?: Record<string, unknown> } | undefined;
      if (x.type !== "message" || m?.role !== "assistant" || !m.usage || !inWindow(q, x.timestamp)) return;
      const u = m.usage;
      const cost = (u.cost as { total?: unknown } | undefined)?.total;
      tally.add({ input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, cost });
    });
  }
  const why = bad > 0 ? `no readable usage in this camp's Pi sessions (${bad} malformed line${bad === 1 ? "" : "s"})` : "no usage recorded in this camp's Pi sessions since the task started";
  return tally.result(dir, why);
}
