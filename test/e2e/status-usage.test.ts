// TSK-13..14 end to end: `vx status` reads a soldier's usage where its harness keeps it.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { taskFixture, vx, writeTaskFile } from "../helpers";
import { initializedSandbox } from "../init-project";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "usage");

describe("vx status: usage", () => {
  test("a Claude soldier's transcript in its camp's folder: per task in --json, the project's total, a cost line in text", async () => {
    using s = await initializedSandbox();
    const camp = join(s.home, "camps", "one");
    mkdirSync(camp, { recursive: true });
    const dir = join(s.home, ".claude", "projects", camp.replace(/[^a-zA-Z0-9]/g, "-"));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "s.jsonl"), readFileSync(join(FIXTURES, "claude.jsonl"), "utf8").replaceAll("/CAMP", camp));
    const at = "2026-01-01T00:00:00.000Z";
    const claude = taskFixture({ id: "aaaaaaaaaaaaaaaa", harness: "claude", camp_path: camp, camp_branch: "vexillum/aaaaaaaaaaaaaaaa", created_at: at, updated_at: "2026-01-02T00:00:00.000Z" });
    const codex = taskFixture({ id: "bbbbbbbbbbbbbbbb", harness: "codex", camp_path: join(s.home, "camps", "two"), camp_branch: "vexillum/bbbbbbbbbbbbbbbb", created_at: at, updated_at: at });
    writeTaskFile(s.home, s.project, claude);
    writeTaskFile(s.home, s.project, codex);

    const r = await vx(["status", "--json"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.tasks).toEqual([claude, codex]);
    expect(doc.usage).toEqual({
      aaaaaaaaaaaaaaaa: { input_tokens: 1210, output_tokens: 305, cache_read_tokens: 11000, cache_write_tokens: 800, cost_usd: 0.0421, source: dir },
      bbbbbbbbbbbbbbbb: { unknown: `no Codex session found: ${join(s.home, ".codex", "sessions")} does not exist` },
    });
    expect(doc.usage_total).toEqual({ input_tokens: 1210, output_tokens: 305, cache_read_tokens: 11000, cache_write_tokens: 800, cost_usd: 0.0421, tasks_known: 1, tasks_unknown: 1 });

    const text = await vx(["status"], { cwd: s.project, env: s.env });
    const lines = text.stdout.split("\n");
    const row = lines.findIndex((l) => l.startsWith("aaaaaaaaaaaaaaaa"));
    expect(lines[row + 1]).toBe("    cost: 1.2k in, 305 out, 11k cache read, 800 cache write, $0.04");
    // An unknown usage adds no line.
    expect(lines[lines.findIndex((l) => l.startsWith("bbbbbbbbbbbbbbbb")) + 1]).toBe("");
    expect(text.stdout.match(/cost:/g)).toHaveLength(1);
  });

  test("an OpenCode soldier's messages in OpenCode's store (the compiled binary opens SQLite read-only)", async () => {
    using s = await initializedSandbox();
    const camp = join(s.home, "camps", "one");
    mkdirSync(camp, { recursive: true });
    const store = join(s.home, ".local", "share", "opencode");
    mkdirSync(store, { recursive: true });
    const db = new Database(join(store, "opencode.db"));
    db.exec(readFileSync(join(FIXTURES, "opencode.sql"), "utf8").replaceAll("/CAMP", camp));
    db.close();
    const at = "2026-01-01T00:00:00.000Z";
    writeTaskFile(s.home, s.project, taskFixture({ id: "cccccccccccccccc", harness: "opencode", camp_path: camp, created_at: at, updated_at: at }));
    const doc = JSON.parse((await vx(["status", "--json"], { cwd: s.project, env: s.env })).stdout);
    expect(doc.usage).toEqual({
      cccccccccccccccc: { input_tokens: 1210, output_tokens: 305, cache_read_tokens: 7700, cache_write_tokens: 300, cost_usd: 0.0123, source: join(store, "opencode.db") },
    });
  });
});
