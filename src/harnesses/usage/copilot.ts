/**
 * Copilot CLI: `<COPILOT_HOME>/session-state/<id>/events.jsonl`; `session.start` names the cwd (`data.context.cwd`) and
 * each model call is a `session.usage_record` event ({inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens});
 * its `cost` is a premium-request multiplier, not money, so no `cost_usd`.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Tally, type UsageQuery, type UsageResult, eachJsonLine, firstJsonLine, home, inWindow } from "./records";

export function copilotSessionsDir(env: UsageQuery["env"]): string {
  return join(env.COPILOT_HOME || join(home(env), ".copilot"), "session-state");
}

type UsageRecord = { inputTokens?: unknown; outputTokens?: unknown; cacheReadTokens?: unknown; cacheWriteTokens?: unknown; accounting?: { usageId?: unknown } };

export function copilotUsage(q: UsageQuery): UsageResult {
  const root = copilotSessionsDir(q.env);
  let ids: string[];
  try {
    ids = readdirSync(root);
  } catch {
    return { unknown: `no Copilot session found: ${root} does not exist` };
  }
  const tally = new Tally();
  const seen = new Set<string>();
  const files: string[] = [];
  let bad = 0;
  for (const id of ids.sort()) {
    const file = join(root, id, "events.jsonl");
    try {
      const st = statSync(file);
      if (!st.isFile() || st.mtimeMs < q.since) continue;
    } catch {
      continue;
    }
    const start = firstJsonLine(file);
    const data = start?.data as { context?: { cwd?: unknown } } | undefined;
    if (start?.type !== "session.start" || data?.context?.cwd !== q.camp) continue;
    files.push(file);
    bad += eachJsonLine(file, '"session.usage_record"', (x) => {
      const u = (x.data as { usage?: UsageRecord } | undefined)?.usage;
      if (x.type !== "session.usage_record" || !u || !inWindow(q, x.timestamp)) return;
      const key = typeof u.accounting?.usageId === "string" ? u.accounting.usageId : typeof x.id === "string" ? x.id : undefined;
      if (key) {
        if (seen.has(key)) return;
        seen.add(key);
      }
      tally.add({ input: u.inputTokens, output: u.outputTokens, cacheRead: u.cacheReadTokens, cacheWrite: u.cacheWriteTokens });
    });
  }
  if (files.length === 0) return { unknown: `no Copilot session found for this camp under ${root}` };
  const why = bad > 0 ? `no readable usage in this camp's Copilot sessions (${bad} malformed line${bad === 1 ? "" : "s"})` : "no usage recorded in this camp's Copilot sessions since the task started";
  return tally.result(files.length === 1 ? files[0]! : root, why);
}
