// The forum's pure rules and its files (FOR-07, FOR-10): session keys, message checks, the three
// writes of a message and their repair after a kill. Access and artifacts: forum-access.test.ts.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sessionKey, sessionPaths } from "../../src/forum/paths";
import { messageProblem, openSession, postFromGeneral, readTranscript, recoverSession } from "../../src/forum/sessions";
import { projectPaths } from "../../src/state/paths";
import { unreadSessions } from "../../src/forum/inbox";
import { idleReason } from "../../src/forum/server";
import { DURATIONS } from "../../src/time";
import { boardData } from "../../src/forum/board";
import { realExec } from "../../src/exec";
import { reportPath } from "../../src/lifecycle/observe";
import { ensureProjectRecord } from "../../src/state/project-record";
import { createTask } from "../../src/state/tasks";
import { git, sandbox, taskFixture } from "../helpers";
import { writeForumWake, writeSoldierWake } from "../../src/wakes/queue";

describe("messages and sessions (FOR-07, FOR-10)", () => {
  test("session keys are safe names from the real path", () => {
    expect(sessionKey("/p/docs/plan.md")).toMatch(/^plan\.md-[0-9a-f]{8}$/);
    expect(sessionKey("/p/a/plan.md")).not.toBe(sessionKey("/p/b/plan.md"));
    expect(sessionKey("/p/we ird?#.md")).toMatch(/^we_ird__\.md-[0-9a-f]{8}$/);
  });

  test("message checks: empty, too long (in bytes), not text", () => {
    expect(messageProblem("hi")).toBeUndefined();
    expect(messageProblem(" \n")).toContain("empty");
    expect(messageProblem("é".repeat(10001))).toContain("20002 bytes");
    expect(messageProblem("x".repeat(20000))).toBeUndefined();
    expect(messageProblem(undefined)).toContain("text");
    expect(messageProblem("bad \uFFFD")).toContain("UTF-8");
  });

  test("a server killed after the transcript line: the restart writes the inbox message and the wake", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-forum-")));
    try {
      const root = join(base, "home", ".vexillum");
      mkdirSync(join(base, "home"));
      const project = join(base, "p");
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, "plan.md"), "# p\n");
      const s = await openSession(root, project, join(project, "plan.md"), 1000);
      const { line } = await postFromGeneral(root, s, "first", 2000);
      // What a kill between the steps leaves: a line the inbox does not have.
      const orphan = { uid: "zz-orphan", from: "general", text: "second", at: "2026-12-01T00:00:03.000Z" };
      const tp = sessionPaths(root, s.session).transcript;
      writeFileSync(tp, `${readFileSync(tp, "utf8")}${JSON.stringify(orphan)}\n`);
      const paths = projectPaths(root, project);
      expect(unreadSessions(paths)[0]?.messages.map((m) => m.value.uid)).toEqual([line.uid]);
      expect(recoverSession(root, s, 5000)).toBe(1);
      expect(unreadSessions(paths)[0]?.messages.map((m) => m.value.uid)).toEqual([line.uid, "zz-orphan"]);
      const wake = JSON.parse(readFileSync(join(paths.forumWakesDir, `${s.session}.json`), "utf8"));
      expect(wake).toMatchObject({ session: s.session, file: "plan.md", count: 2 });
      expect(recoverSession(root, s, 6000)).toBe(0);
      expect(readTranscript(root, s.session).map((l) => l.text)).toEqual(["first", "second"]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("the idle limit (FOR-05)", () => {
  const limit = DURATIONS.forumIdle;
  test("exits only after 8 h with no open page and no activity", () => {
    expect(limit).toBe(8 * 3600 * 1000);
    const t0 = 1_000_000;
    expect(idleReason(t0 + limit - 1, t0, 0, limit)).toBeUndefined();
    expect(idleReason(t0 + limit, t0, 0, limit)).toBe("idle with no open page");
    // An open page keeps it, however long.
    expect(idleReason(t0 + 10 * limit, t0, 1, limit)).toBeUndefined();
    // Activity starts the wait again.
    expect(idleReason(t0 + limit, t0 + 1, 0, limit)).toBeUndefined();
  });
});

describe("the board's data (FOR-04)", () => {
  test("a scout's report path once it exists, as vx status shows it; nothing for a mission", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "vx-board-")));
    try {
      const paths = projectPaths(root, "/p/app");
      ensureProjectRecord(paths);
      const scout = taskFixture({ id: "5555555555555555", kind: "scout", status: "done" });
      await createTask(paths, scout);
      await createTask(paths, taskFixture({ id: "6666666666666666", kind: "mission", status: "done" }));
      const before = await boardData(root, realExec, new Map(), Date.now());
      expect(before.projects[0]!.tasks.map((t) => t.report_path)).toEqual([undefined, undefined]);
      const report = reportPath(paths, scout);
      mkdirSync(join(report, ".."), { recursive: true });
      writeFileSync(report, "# findings\n");
      const after = await boardData(root, realExec, new Map(), Date.now());
      const byId = Object.fromEntries(after.projects[0]!.tasks.map((t) => [t.id, t.report_path]));
      expect(byId).toEqual({ "5555555555555555": report, "6666666666666666": undefined });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("each task's shown state (TSK-12): a landed mission with its commit, a struck scout, one still waiting to land", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "vx-board-")));
    try {
      const paths = projectPaths(root, "/p/app");
      ensureProjectRecord(paths);
      const commit = "0123456789abcdef0123456789abcdef01234567";
      await createTask(paths, taskFixture({ id: "7777777777777777", kind: "mission", status: "done", landed_at: "2026-12-01T10:00:00Z", landed_commit: commit }));
      await createTask(paths, taskFixture({ id: "8888888888888888", kind: "scout", status: "done", struck_at: "2026-12-01T10:00:00Z" }));
      await createTask(paths, taskFixture({ id: "9999999999999999", kind: "mission", status: "done" }));
      const board = await boardData(root, realExec, new Map(), Date.now());
      const byId = Object.fromEntries(board.projects[0]!.tasks.map((t) => [t.id, [t.state, t.landed_commit]]));
      expect(byId).toEqual({ "7777777777777777": ["landed", commit], "8888888888888888": ["struck", undefined], "9999999999999999": ["done", undefined] });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("only the wakes still true, by the deliverers' rule (WAK-09, WAK-10): moved on, gone and read ones are left out", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "vx-board-")));
    try {
      const paths = projectPaths(root, "/p/app");
      ensureProjectRecord(paths);
      await createTask(paths, taskFixture({ id: "aaaaaaaaaaaaaaaa", status: "failed" }));
      await createTask(paths, taskFixture({ id: "bbbbbbbbbbbbbbbb", status: "running" }));
      const at = new Date().toISOString();
      const wake = (task_id: string, new_status: "failed" | "done", note?: string) => ({
        task_id,
        kind: "mission" as const,
        old_status: "running" as const,
        new_status,
        detected_at: at,
        ...(note ? { note } : {}),
      });
      writeSoldierWake(root, paths.wakesDir, wake("aaaaaaaaaaaaaaaa", "failed", "the harness exited 1"));
      writeSoldierWake(root, paths.wakesDir, wake("bbbbbbbbbbbbbbbb", "done")); // it is running again: stale
      writeSoldierWake(root, paths.wakesDir, wake("cccccccccccccccc", "done")); // no such task: stale
      writeForumWake(paths, { session: "general", file: "board", count: 2, ended: false, detectedAt: Date.now() }); // its inbox is empty: stale
      const board = await boardData(root, realExec, new Map(), Date.now());
      expect(board.projects[0]!.wakes).toEqual([{ name: "aaaaaaaaaaaaaaaa.json", text: "mission aaaaaaaaaaaaaaaa: running -> failed", task_id: "aaaaaaaaaaaaaaaa", note: "the harness exited 1" }]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("a done mission's wake is no longer true once git finds its work in the base (WAK-09), and true again when it is not", async () => {
    using sbx = sandbox();
    const root = join(sbx.home, ".vexillum");
    const paths = projectPaths(root, sbx.project);
    ensureProjectRecord(paths);
    const done = taskFixture({ id: "dddddddddddddddd", status: "done", camp_path: sbx.project, camp_branch: "main", camp_base: "main" });
    await createTask(paths, done);
    writeSoldierWake(root, paths.wakesDir, { task_id: done.id, kind: "mission", old_status: "running", new_status: "done", detected_at: new Date().toISOString() });
    // The camp's HEAD is the base's own commit: landed.
    expect((await boardData(root, realExec, new Map(), Date.now())).projects[0]!.wakes).toEqual([]);
    git(sbx.project, "checkout", "-q", "-b", "vx/work");
    writeFileSync(join(sbx.project, "work.txt"), "work\n");
    git(sbx.project, "add", "work.txt");
    git(sbx.project, "commit", "-q", "-m", "work");
    expect((await boardData(root, realExec, new Map(), Date.now())).projects[0]!.wakes.map((w) => w.task_id)).toEqual([done.id]);
  });
});
