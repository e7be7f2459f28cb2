// `vx forum inbox [--json] [--ack <uid>...]` end to end (FOR-01..04): the inbox files as a forum
// listener writes them, the listing, acknowledgement, and the forum wake dropped once all is read.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectKey } from "../../src/state/paths";
import { type Sandbox, sandbox, vx } from "../helpers";
import { initProject } from "../init-project";

type Inbox = Sandbox & { stateDir: string; run(args: string[]): ReturnType<typeof vx> };

async function inbox(): Promise<Inbox> {
  const s = sandbox();
  await initProject(s.project, s.env);
  const stateDir = join(s.home, ".vexillum", "projects", projectKey(s.project));
  return Object.assign(s, { stateDir, run: (args: string[]) => vx(["forum", ...args], { cwd: s.project, env: s.env }) });
}

/** A message file as FOR-01 describes it (the listener writes the message, then the wake). */
function message(q: Inbox, session: string, uid: string, over: Record<string, unknown> = {}): string {
  const dir = join(q.stateDir, "forum-inbox", session);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${uid}.json`);
  const msg = { uid, session, file: `docs/${session}.md`, text: `text of ${uid}`, received_at: "2026-11-30T10:00:00.000Z", ...over };
  writeFileSync(path, `${JSON.stringify(msg, null, 2)}\n`);
  return path;
}

function forumWake(q: Inbox, session: string, count: number): string {
  const dir = join(q.stateDir, "wakes", "forum");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${session}.json`);
  writeFileSync(path, JSON.stringify({ session, file: `docs/${session}.md`, count, ended: false, detected_at: "2026-11-30T10:00:00.000Z" }));
  return path;
}

const readJson = (p: string) => JSON.parse(readFileSync(p, "utf8"));

/** Two sessions: `beta` has the oldest unread message, `alpha` one unread and one already read. */
function seed(q: Inbox) {
  return {
    a1: message(q, "alpha", "a1", { received_at: "2026-11-30T10:05:00.000Z", text: "first line\nsecond line" }),
    a0: message(q, "alpha", "a0", { received_at: "2026-11-30T09:00:00.000Z", acked_at: "2026-11-30T09:30:00.000Z" }),
    b2: message(q, "beta", "b2", { received_at: "2026-11-30T10:02:00.000Z", text: "later" }),
    b1: message(q, "beta", "b1", { received_at: "2026-11-30T10:01:00.000Z", text: "bell \u0007 here", note: "kept" }),
  };
}

describe("vx forum inbox", () => {
  test("nothing waiting: the exact line, and an empty JSON list", async () => {
    using q = await inbox();
    expect(await q.run(["inbox"])).toEqual({ code: 0, stdout: "no forum feedback waiting in this project.\n", stderr: "" });
    const r = await q.run(["inbox", "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toEqual({ schema_version: 1, generated_at: expect.any(String), sessions: [] });
    expect(Number.isNaN(Date.parse(doc.generated_at))).toBe(false);
  });

  test("lists unread messages by session, oldest first, text indented and made printable; reads nothing as acknowledged", async () => {
    using q = await inbox();
    const files = seed(q);
    const before = Object.values(files).map((p) => readFileSync(p, "utf8"));
    const r = await q.run(["inbox"]);
    expect(r).toEqual({
      code: 0,
      stderr: "",
      stdout: [
        "forum session docs/beta.md (beta): 2 unread",
        "  [b1] 2026-11-30T10:01:00.000Z",
        "    bell \\x07 here",
        "  [b2] 2026-11-30T10:02:00.000Z",
        "    later",
        "forum session docs/alpha.md (alpha): 1 unread",
        "  [a1] 2026-11-30T10:05:00.000Z",
        "    first line",
        "    second line",
        "",
      ].join("\n"),
    });
    expect(Object.values(files).map((p) => readFileSync(p, "utf8"))).toEqual(before);
  });

  test("--json: sessions with their file and messages {uid, text, received_at}", async () => {
    using q = await inbox();
    seed(q);
    const r = await q.run(["inbox", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).sessions).toEqual([
      {
        session: "beta",
        file: "docs/beta.md",
        messages: [
          { uid: "b1", text: "bell \u0007 here", received_at: "2026-11-30T10:01:00.000Z" },
          { uid: "b2", text: "later", received_at: "2026-11-30T10:02:00.000Z" },
        ],
      },
      { session: "alpha", file: "docs/alpha.md", messages: [{ uid: "a1", text: "first line\nsecond line", received_at: "2026-11-30T10:05:00.000Z" }] },
    ]);
  });

  test("--ack stamps acked_at, keeps every other field, and drops the wake of a session left with nothing unread", async () => {
    using q = await inbox();
    const files = seed(q);
    const alphaWake = forumWake(q, "alpha", 1);
    const betaWake = forumWake(q, "beta", 2);
    const t0 = Date.now();
    const r = await q.run(["inbox", "--ack", "a1", "b1"]);
    expect(r).toEqual({ code: 0, stdout: "acked a1\nacked b1\n", stderr: "" });
    const b1 = readJson(files.b1);
    expect(b1).toEqual({ uid: "b1", session: "beta", file: "docs/beta.md", text: "bell \u0007 here", received_at: "2026-11-30T10:01:00.000Z", acked_at: expect.any(String), note: "kept" });
    expect(Date.parse(b1.acked_at)).toBeGreaterThanOrEqual(t0 - 1000);
    expect(readJson(files.a1).acked_at).toBe(b1.acked_at);
    // alpha has nothing unread now: its wake is gone. beta still has b2: its wake stays.
    expect(existsSync(alphaWake)).toBe(false);
    expect(existsSync(betaWake)).toBe(true);
    expect((await q.run(["inbox"])).stdout).toBe("forum session docs/beta.md (beta): 1 unread\n  [b2] 2026-11-30T10:02:00.000Z\n    later\n");
    // The last one read: beta's wake goes too, and nothing is left to deliver.
    expect(await q.run(["inbox", "--ack=b2"])).toEqual({ code: 0, stdout: "acked b2\n", stderr: "" });
    expect(existsSync(betaWake)).toBe(false);
    expect((await q.run(["inbox"])).stdout).toBe("no forum feedback waiting in this project.\n");
  });

  test("repeated --ack flags work like uids after one --ack", async () => {
    using q = await inbox();
    seed(q);
    expect(await q.run(["inbox", "--ack", "b2", "--ack", "b1"])).toEqual({ code: 0, stdout: "acked b2\nacked b1\n", stderr: "" });
  });

  test("an unknown or already acknowledged uid: named on stderr, the others still acknowledged, exit 1", async () => {
    using q = await inbox();
    const files = seed(q);
    const a0 = readFileSync(files.a0, "utf8");
    const r = await q.run(["inbox", "--ack", "nope", "b1", "a0", "../a1"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("acked b1\n");
    expect(r.stderr).toBe("vx: no unread forum message nope in this project\nvx: no unread forum message a0 in this project\nvx: no unread forum message ../a1 in this project\n");
    expect(readJson(files.b1).acked_at).toEqual(expect.any(String));
    expect(readFileSync(files.a0, "utf8")).toBe(a0);
    expect(readJson(files.a1).acked_at).toBeUndefined();
  });

  test("a corrupt message file fails naming it, and nothing is acknowledged", async () => {
    using q = await inbox();
    const files = seed(q);
    const bad = message(q, "gamma", "g1");
    writeFileSync(bad, "{ not json");
    for (const args of [["inbox"], ["inbox", "--ack", "b1"]]) {
      const r = await q.run(args);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toStartWith(`vx: ${bad}: invalid JSON`);
    }
    expect(readJson(files.b1).acked_at).toBeUndefined();
  });

  test("a message whose uid is not its file name is corrupt", async () => {
    using q = await inbox();
    const path = message(q, "alpha", "a1", { uid: "other" });
    const r = await q.run(["inbox"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toStartWith(`vx: ${path}: it names message "other" of session "alpha"`);
  });

  test.each([
    [["frobnicate"], 'vx: unknown forum subcommand "frobnicate"\n'],
    [["reply"], "vx: missing <file> for forum reply\n"],
    [[], "vx: missing forum subcommand or <file> (expected a file, reply, end, list, board, stop or inbox)\n"],
    [["list", "--ack", "a1"], "vx: --ack goes with forum inbox, not forum list\n"],
    [["inbox", "--open"], "vx: --open goes with a <file> or board, not forum inbox\n"],
    [["list", "extra"], 'vx: unexpected argument "extra" after forum list\n'],
    [["inbox", "extra"], 'vx: unexpected argument "extra"\n'],
    [["inbox", "--json", "--ack", "a1"], "vx: --json lists messages and cannot be combined with --ack\n"],
    [["inbox", "--frob"], 'vx: unknown flag "--frob"\n'],
  ])("%p is a usage error (64) with the usage", async (args, message) => {
    using q = await inbox();
    const r = await q.run(args);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toStartWith(`${message}Usage: vx forum <file> [--open]\n`);
    expect(r.stderr).toContain("       vx forum inbox [--json] [--ack <uid>...]\n");
  });

  test("needs an initialized project", async () => {
    using s = sandbox();
    const r = await vx(["forum", "inbox"], { cwd: s.project, env: s.env });
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: project not initialized, run 'vx init' first\n" });
  });
});
