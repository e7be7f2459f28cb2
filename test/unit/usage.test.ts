// TSK-13: each harness's usage reader on records in the formats the pinned CLIs wrote (test/fixtures/usage).
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type UsageResult, taskUsage, tasksUsage, usageLine, usageTotal } from "../../src/cost";
import { eachJsonLine } from "../../src/harnesses/usage/records";
import { stateDirPaths } from "../../src/state/paths";
import type { Task } from "../../src/state/schemas";
import { taskFixture } from "../helpers";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "usage");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type World = { home: string; camp: string; state: string; env: Record<string, string> };

function world(): World {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-usage-")));
  dirs.push(base);
  const camp = join(base, "state", "camps", "1");
  mkdirSync(camp, { recursive: true });
  return { home: join(base, "home"), camp, state: join(base, "state"), env: { HOME: join(base, "home") } };
}

/** A fixture with its `/CAMP` placeholder made the world's camp, written at `path`. */
function place(w: World, fixture: string, path: string, camp = w.camp): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, readFileSync(join(FIXTURES, fixture), "utf8").replaceAll("/CAMP", camp));
  return path;
}

function task(w: World, harness: Task["harness"], over: Record<string, unknown> = {}): Task {
  return taskFixture({ id: "0123456789abcdef", harness, camp_path: w.camp, created_at: "2026-01-01T00:00:00.000Z", ...over }) as Task;
}

const unknownOf = (u: UsageResult) => ("unknown" in u ? u.unknown : "(known)");
const usageOf = (w: World, t: Task) => taskUsage(stateDirPaths(w.state), t, w.env);
const claudeDir = (w: World, camp = w.camp) => join(w.home, ".claude", "projects", camp.replace(/[^a-zA-Z0-9]/g, "-"));
const piDir = (w: World) => join(w.home, ".pi", "agent", "sessions", `--${w.camp.slice(1).replaceAll("/", "-")}--`);
const codexDay = (w: World) => join(w.home, ".codex", "sessions", "2026", "12", "06");
const geminiChats = (w: World) => join(w.state, "hooks", "0123456789abcdef", "gemini-home", ".gemini", "tmp", "camp", "chats");
const copilotDir = (w: World) => join(w.home, ".copilot", "session-state", "dca6b457-d3fd-436f-9c1f-40897b534042");

describe("usage readers", () => {
  test("Claude Code: message usage once per message id, in the task's window, a malformed line skipped; its cost-state's money", () => {
    const w = world();
    const file = place(w, "claude.jsonl", join(claudeDir(w), "11111111-2222-3333-4444-555555555555.jsonl"));
    expect(usageOf(w, task(w, "claude"))).toEqual({
      input_tokens: 1210,
      output_tokens: 305,
      cache_read_tokens: 11000,
      cache_write_tokens: 800,
      cost_usd: 0.0421,
      source: dirname(file),
    });
    // CLAUDE_CONFIG_DIR moves the store: nothing there.
    expect(usageOf({ ...w, env: { ...w.env, CLAUDE_CONFIG_DIR: join(w.home, "elsewhere") } }, task(w, "claude"))).toEqual({
      unknown: `no Claude Code session found for this camp under ${join(w.home, "elsewhere", "projects")}`,
    });
    // A task created after those records (a later tenant of the camp) has none of them.
    expect(usageOf(w, task(w, "claude", { created_at: "2027-01-01T00:00:00.000Z" }))).toEqual({
      unknown: "no usage recorded in this camp's Claude Code sessions since the task started",
    });
  });

  test("Claude Code: a transcript of malformed lines only, and a camp with no session", () => {
    const w = world();
    mkdirSync(claudeDir(w), { recursive: true });
    writeFileSync(join(claudeDir(w), "s.jsonl"), '{"type":"assistant","message":{"usage":\n');
    expect(usageOf(w, task(w, "claude"))).toEqual({ unknown: "no readable usage in this camp's Claude Code sessions (1 malformed line)" });
    const empty = world();
    expect(usageOf(empty, task(empty, "claude"))).toEqual({ unknown: `no Claude Code session found for this camp under ${join(empty.home, ".claude", "projects")}` });
  });

  test("Pi: assistant usage with its cost, a malformed line skipped; no session dir", () => {
    const w = world();
    place(w, "pi.jsonl", join(piDir(w), "2026-12-06T06-11-34-861Z_01a249fa.jsonl"));
    expect(usageOf(w, task(w, "pi"))).toEqual({ input_tokens: 2010, output_tokens: 405, cache_read_tokens: 1000, cache_write_tokens: 500, cost_usd: 0.01428, source: piDir(w) });
    const empty = world();
    expect(usageOf(empty, task(empty, "pi"))).toEqual({ unknown: `no Pi session found for this camp (${piDir(empty)})` });
  });

  test("Codex: the last total of the camp's rollouts, cached input apart; another directory's rollout ignored", () => {
    const w = world();
    const file = place(w, "codex.jsonl", join(codexDay(w), "rollout-2026-12-06T06-11-37-01a249fa.jsonl"));
    place(w, "codex.jsonl", join(codexDay(w), "rollout-2026-12-06T06-11-38-other.jsonl"), "/somewhere/else");
    expect(usageOf(w, task(w, "codex"))).toEqual({ input_tokens: 2000, output_tokens: 700, cache_read_tokens: 6000, cache_write_tokens: 100, source: file });
    const empty = world();
    expect(usageOf(empty, task(empty, "codex"))).toEqual({ unknown: `no Codex session found: ${join(empty.home, ".codex", "sessions")} does not exist` });
    // CODEX_HOME is honoured.
    expect(usageOf({ ...w, env: { HOME: "/nonexistent", CODEX_HOME: join(w.home, ".codex") } }, task(w, "codex"))).toMatchObject({ input_tokens: 2000 });
  });

  test("OpenCode: the store's assistant messages of sessions in the camp, reasoning as output; a malformed row skipped; no store", () => {
    const w = world();
    const path = join(w.home, ".local", "share", "opencode", "opencode.db");
    mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.exec(readFileSync(join(FIXTURES, "opencode.sql"), "utf8").replaceAll("/CAMP", w.camp));
    db.close();
    expect(usageOf(w, task(w, "opencode"))).toEqual({ input_tokens: 1210, output_tokens: 305, cache_read_tokens: 7700, cache_write_tokens: 300, cost_usd: 0.0123, source: path });
    expect(usageOf({ ...w, env: { ...w.env, XDG_DATA_HOME: join(w.home, "none") } }, task(w, "opencode"))).toEqual({
      unknown: `no OpenCode session store at ${join(w.home, "none", "opencode", "opencode.db")}`,
    });
    writeFileSync(path, "not a database");
    expect(unknownOf(usageOf(w, task(w, "opencode")))).toStartWith(`unreadable: ${path}: `);
  });

  test("Gemini CLI: the task's private home, a rewritten message counted once, cached and thoughts apart; none there", () => {
    const w = world();
    place(w, "gemini.jsonl", join(geminiChats(w), "session-2026-12-06T06-12-87a07b3c.jsonl"));
    expect(usageOf(w, task(w, "gemini"))).toEqual({
      input_tokens: 5010,
      output_tokens: 205,
      cache_read_tokens: 4000,
      cache_write_tokens: 0,
      source: join(w.state, "hooks", "0123456789abcdef", "gemini-home", ".gemini", "tmp"),
    });
    const empty = world();
    expect(unknownOf(usageOf(empty, task(empty, "gemini")))).toStartWith("no Gemini CLI session found for this task (");
  });

  test("Copilot CLI: each usage record once, a malformed line skipped; another camp's session is not this one's", () => {
    const w = world();
    const file = place(w, "copilot-events.jsonl", join(copilotDir(w), "events.jsonl"));
    expect(usageOf(w, task(w, "copilot"))).toEqual({ input_tokens: 3010, output_tokens: 255, cache_read_tokens: 2000, cache_write_tokens: 40, source: file });
    const other = world();
    place(other, "copilot-events.jsonl", join(copilotDir(other), "events.jsonl"), "/somewhere/else");
    expect(usageOf(other, task(other, "copilot"))).toEqual({ unknown: `no Copilot session found for this camp under ${join(other.home, ".copilot", "session-state")}` });
  });

  test("a task with no camp, on another machine, or of the demo soldier says why; never a number", () => {
    const w = world();
    expect(usageOf(w, task(w, "claude", { camp_path: undefined }))).toEqual({ unknown: "no camp recorded for this task" });
    expect(usageOf(w, task(w, "claude", { machine: "box" }))).toEqual({ unknown: "runs on machine box, whose records stay there" });
    expect(usageOf(w, task(w, "demo"))).toEqual({ unknown: "the demo soldier runs no model" });
  });

  test("a camp's next tenant closes the earlier task's window; the total sums the known, money only when all have it", () => {
    const w = world();
    place(w, "pi.jsonl", join(piDir(w), "s.jsonl"));
    const early = task(w, "pi", { id: "aaaaaaaaaaaaaaaa", created_at: "2026-01-01T00:00:00.000Z" });
    const late = task(w, "pi", { id: "bbbbbbbbbbbbbbbb", created_at: "2026-12-06T06:11:39.000Z" });
    const all = tasksUsage(stateDirPaths(w.state), [late, early], w.env);
    expect(all.aaaaaaaaaaaaaaaa).toMatchObject({ input_tokens: 2000, output_tokens: 400, cost_usd: 0.014175 });
    expect(all.bbbbbbbbbbbbbbbb).toMatchObject({ input_tokens: 10, output_tokens: 5, cost_usd: 0.000105 });
    expect(usageTotal(all)).toEqual({ input_tokens: 2010, output_tokens: 405, cache_read_tokens: 1000, cache_write_tokens: 500, cost_usd: 0.01428, tasks_known: 2, tasks_unknown: 0 });
    const mixed = { ...all, c: { input_tokens: 1, output_tokens: 1, source: "x" }, d: { unknown: "why" } };
    expect(usageTotal(mixed)).toEqual({ input_tokens: 2011, output_tokens: 406, cache_read_tokens: 1000, cache_write_tokens: 500, tasks_known: 3, tasks_unknown: 1 });
    expect(usageLine(all.aaaaaaaaaaaaaaaa)).toBe("    cost: 2.0k in, 400 out, 1.0k cache read, 500 cache write, $0.01");
    expect(usageLine({ unknown: "why" })).toBeUndefined();
  });

  test("a line longer than the reader's cap is skipped, the lines after it read", () => {
    const w = world();
    const file = place(w, "pi.jsonl", join(piDir(w), "s.jsonl"));
    const lines = readFileSync(file, "utf8").split("\n");
    lines.splice(4, 0, `{"type":"message","pad":"${"x".repeat(9 << 20)}","usage":1}`);
    writeFileSync(file, lines.join("\n"));
    expect(usageOf(w, task(w, "pi"))).toMatchObject({ input_tokens: 2010, output_tokens: 405 });
  });

  test("lines split across the reader's 1 MiB chunks are each read once, whole", () => {
    const w = world();
    const path = join(w.home, "long.jsonl");
    mkdirSync(w.home, { recursive: true });
    // Lines of many lengths, so chunk ends fall inside lines, some of them the usage lines.
    const lines: string[] = [];
    let want = 0;
    for (let i = 0; i < 3000; i++) {
      if (i % 7 === 0) {
        lines.push(JSON.stringify({ type: "u", n: i, pad: "y".repeat(i % 997), usage: i }));
        want += i;
      } else lines.push(JSON.stringify({ type: "other", pad: "z".repeat((i * 131) % 4000) }));
    }
    writeFileSync(path, lines.join("\n"));
    let sum = 0;
    let seen = 0;
    expect(
      eachJsonLine(path, '"usage"', (x) => {
        sum += x.usage as number;
        seen++;
      }),
    ).toBe(0);
    expect(seen).toBe(Math.ceil(3000 / 7));
    expect(sum).toBe(want);
  });

  test("a FIFO where a transcript would be is skipped, never waited on", () => {
    const w = world();
    const file = place(w, "claude.jsonl", join(claudeDir(w), "s.jsonl"));
    expect(Bun.spawnSync(["mkfifo", join(claudeDir(w), "fifo.jsonl")]).exitCode).toBe(0);
    expect(usageOf(w, task(w, "claude"))).toMatchObject({ input_tokens: 1210, source: dirname(file) });
    const direct = join(w.home, "direct.jsonl");
    expect(Bun.spawnSync(["mkfifo", direct]).exitCode).toBe(0);
    expect(() => eachJsonLine(direct, "x", () => undefined)).not.toThrow();
  });
});
