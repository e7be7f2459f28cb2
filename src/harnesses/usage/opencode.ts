/**
 * OpenCode: one SQLite store, `<data dir>/opencode/opencode.db` (`OPENCODE_DB` overrides), whose `session.directory` is the
 * cwd and whose assistant `message.data` holds `tokens` ({input, output, reasoning, cache: {read, write}}) and `cost`.
 */
import type { Database } from "bun:sqlite";
import { isAbsolute, join } from "node:path";
import { errorMessage } from "../../errors";
import { Tally, type UsageQuery, type UsageResult, exists, home } from "./records";

export function opencodeDb(env: UsageQuery["env"]): string {
  const data = join(env.XDG_DATA_HOME || join(home(env), ".local", "share"), "opencode");
  const named = env.OPENCODE_DB;
  if (named && named !== ":memory:") return isAbsolute(named) ? named : join(data, named);
  return join(data, "opencode.db");
}

const QUERY = `SELECT json_extract(m.data, '$.tokens.input') AS input, json_extract(m.data, '$.tokens.output') AS output,
  json_extract(m.data, '$.tokens.reasoning') AS reasoning, json_extract(m.data, '$.tokens.cache.read') AS cache_read,
  json_extract(m.data, '$.tokens.cache.write') AS cache_write, json_extract(m.data, '$.cost') AS cost
  FROM message m JOIN session s ON s.id = m.session_id
  WHERE s.directory = ? AND m.time_created >= ? AND m.time_created < ? AND json_valid(m.data)
    AND json_extract(m.data, '$.role') = 'assistant' AND json_type(m.data, '$.tokens') = 'object'`;

type Row = { input: unknown; output: unknown; reasoning: unknown; cache_read: unknown; cache_write: unknown; cost: unknown };

export function opencodeUsage(q: UsageQuery): UsageResult {
  const path = opencodeDb(q.env);
  if (!exists(path)) return { unknown: `no OpenCode session store at ${path}` };
  let db: Database | undefined;
  try {
    // Loaded here, not with the command table every vx process loads.
    const sqlite = require("bun:sqlite") as typeof import("bun:sqlite");
    db = new sqlite.Database(path, { readonly: true });
    db.exec("PRAGMA busy_timeout = 500");
    const rows = db.query(QUERY).all(q.camp, q.since, Number.isFinite(q.until) ? q.until : Number.MAX_SAFE_INTEGER) as Row[];
    const tally = new Tally();
    for (const r of rows) tally.add({ input: r.input, output: (Number(r.output) || 0) + (Number(r.reasoning) || 0), cacheRead: r.cache_read, cacheWrite: r.cache_write, cost: r.cost });
    return tally.result(path, "no OpenCode message with token counts for this camp since the task started");
  } catch (err) {
    return { unknown: `unreadable: ${path}: ${errorMessage(err)}` };
  } finally {
    db?.close();
  }
}
