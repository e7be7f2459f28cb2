/**
 * Gemini CLI: a soldier runs with a private GEMINI_CLI_HOME in its hooks dir (HRN-02), so every chat under its
 * `.gemini/tmp/<project>/chats/` is its own. A chat is JSONL: a message is written again whenever it changes (last
 * wins, by `id`), and a `gemini` message carries `tokens` {input, output, cached, thoughts, tool, total}.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Tally, type UsageQuery, type UsageResult, eachJsonLine, inWindow, recentJsonl } from "./records";

export function geminiTmpDir(q: UsageQuery): string {
  return join(q.hooksDir, "gemini-home", ".gemini", "tmp");
}

type Tokens = { input?: unknown; output?: unknown; cached?: unknown; thoughts?: unknown };

export function geminiUsage(q: UsageQuery): UsageResult {
  const tmp = geminiTmpDir(q);
  let projects: string[];
  try {
    projects = readdirSync(tmp);
  } catch {
    return { unknown: `no Gemini CLI session found for this task (${tmp})` };
  }
  const byId = new Map<string, Tokens>();
  let anon = 0;
  let bad = 0;
  for (const p of projects) {
    for (const file of recentJsonl(join(tmp, p, "chats"), q.since)) {
      bad += eachJsonLine(file, '"tokens"', (x) => {
        if (x.type !== "gemini" || !x.tokens || typeof x.tokens !== "object" || !inWindow(q, x.timestamp)) return;
        byId.set(typeof x.id === "string" ? x.id : `#${anon++}`, x.tokens as Tokens);
      });
    }
  }
  const tally = new Tally();
  // Google counts cached input inside the prompt count, and thinking apart from the candidates.
  for (const t of byId.values()) {
    const cached = typeof t.cached === "number" ? t.cached : 0;
    tally.add({ input: (typeof t.input === "number" ? t.input : 0) - cached, output: (Number(t.output) || 0) + (Number(t.thoughts) || 0), cacheRead: cached });
  }
  const why = bad > 0 ? `no readable usage in this task's Gemini CLI chats (${bad} malformed line${bad === 1 ? "" : "s"})` : "no token counts recorded in this task's Gemini CLI chats";
  return tally.result(tmp, why);
}
