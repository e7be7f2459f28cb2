// The board's cards (FOR-09, FOR-14, FOR-15): each task's usage and the totals, read once per task version (a
// running one again after `boardUsageFresh`); a screen's bottom redacted and bounded; a scout's report as a review.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { realExec } from "../../src/exec";
import { artifactPlace, reviewableFile } from "../../src/forum/artifact";
import { boardData } from "../../src/forum/board";
import { type UsageCache, projectUsage } from "../../src/forum/card-usage";
import { openReport } from "../../src/forum/review-report";
import { SCREEN_LINES, screenTail } from "../../src/forum/screen";
import { openSession } from "../../src/forum/sessions";
import { reportPath } from "../../src/lifecycle/observe";
import { projectPaths } from "../../src/state/paths";
import { ensureProjectRecord } from "../../src/state/project-record";
import type { Task } from "../../src/state/schemas";
import { createTask } from "../../src/state/tasks";
import { DURATIONS } from "../../src/time";
import { taskFixture } from "../helpers";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function world() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-cards-")));
  dirs.push(base);
  const home = join(base, "home");
  const root = join(home, ".vexillum");
  const project = join(base, "app");
  mkdirSync(home);
  mkdirSync(project, { recursive: true });
  const paths = projectPaths(root, project);
  ensureProjectRecord(paths);
  return { base, home, root, project, paths, env: { HOME: home } };
}

type World = ReturnType<typeof world>;

/** A Claude Code transcript (the usage fixture) in `camp`'s folder of the world's ~/.claude. */
function transcript(w: World, camp: string): string {
  const dir = join(w.home, ".claude", "projects", camp.replace(/[^a-zA-Z0-9]/g, "-"));
  mkdirSync(dir, { recursive: true });
  const fixture = readFileSync(join(import.meta.dir, "..", "fixtures", "usage", "claude.jsonl"), "utf8");
  writeFileSync(join(dir, "s.jsonl"), fixture.replaceAll("/CAMP", camp));
  return dir;
}

function claudeTask(w: World, id: string, over: Partial<Task> = {}): Task {
  const camp = join(w.base, "camps", id);
  mkdirSync(camp, { recursive: true });
  return taskFixture({ id, harness: "claude", backend: "tmux", camp_path: camp, created_at: "2026-01-01T00:00:00.000Z", ...over }) as Task;
}

const FIXTURE_USAGE = { input_tokens: 1210, output_tokens: 305, cache_read_tokens: 11000, cache_write_tokens: 800, cost_usd: 0.0421 };

describe("cost on the board (FOR-09, TSK-13..14)", () => {
  test("each card's usage as vx status reads it, unknown ones with their reason; the project's total and the total over projects", async () => {
    const w = world();
    const spent = claudeTask(w, "1111111111111111", { status: "done" });
    const dir = transcript(w, spent.camp_path as string);
    await createTask(w.paths, spent);
    await createTask(w.paths, taskFixture({ id: "2222222222222222", harness: "claude", status: "done" }) as Task);
    const other = projectPaths(w.root, join(w.base, "other"));
    mkdirSync(other.project);
    ensureProjectRecord(other);
    const elsewhere = claudeTask(w, "3333333333333333", { status: "done" });
    transcript(w, elsewhere.camp_path as string);
    await createTask(other, elsewhere);

    const doc = await boardData(w.root, realExec, new Map(), Date.now(), undefined, { env: w.env, cache: new Map() });
    const app = doc.projects.find((p) => p.project_path === w.project)!;
    const usage = Object.fromEntries(app.tasks.map((t) => [t.id, t.usage]));
    expect(usage).toEqual({ "1111111111111111": { ...FIXTURE_USAGE, source: dir }, "2222222222222222": { unknown: "no camp recorded for this task" } });
    // TSK-14: the known tasks summed; the unknown one counted, never as a 0.
    expect(app.usage_total).toEqual({ ...FIXTURE_USAGE, tasks_known: 1, tasks_unknown: 1 });
    expect(doc.usage_total).toMatchObject({ input_tokens: 2420, output_tokens: 610, cost_usd: 0.0842, tasks_known: 2, tasks_unknown: 1 });
  });

  test("read once per task version: a finished task's records are not read again until its file changes; a running one's after boardUsageFresh", () => {
    const w = world();
    const done = claudeTask(w, "4444444444444444", { status: "done" });
    const running = claudeTask(w, "5555555555555555", { status: "running" });
    const dirs = [transcript(w, done.camp_path as string), transcript(w, running.camp_path as string)];
    const cache: UsageCache = new Map();
    const t0 = 1_000_000;
    const first = projectUsage(w.paths, [done, running], w.env, cache, t0);
    expect(Object.values(first).map((u) => "unknown" in u)).toEqual([false, false]);
    // The records go: what the board shows changes only where it reads again.
    for (const d of dirs) rmSync(d, { recursive: true });
    const fresh = DURATIONS.boardUsageFresh;
    const soon = projectUsage(w.paths, [done, running], w.env, cache, t0 + fresh - 1);
    expect(soon).toEqual(first);
    const later = projectUsage(w.paths, [done, running], w.env, cache, t0 + fresh);
    expect(later[done.id]).toEqual(first[done.id]!);
    expect(later[running.id]).toMatchObject({ unknown: expect.stringContaining("no Claude Code session found") });
    // A saved task (a new version) is read again at once.
    const saved = { ...done, updated_at: "2026-12-01T00:00:00.000Z" };
    expect(projectUsage(w.paths, [saved, running], w.env, cache, t0 + fresh)[done.id]).toMatchObject({ unknown: expect.stringContaining("no Claude Code session found") });
    // A task gone from the project leaves the cache.
    projectUsage(w.paths, [running], w.env, cache, t0 + fresh + 1);
    expect([...cache.keys()]).toEqual([`${w.paths.key}\n${running.id}`]);
  });
});

describe("a card's screen (FOR-15)", () => {
  test("the bottom lines only, redacted over the whole capture (a key block whose BEGIN scrolled above them included)", () => {
    const token = `ghp_${"Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5"}`;
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`);
    lines[97] = `export GITHUB_TOKEN=${token}`;
    const tail = screenTail(`${lines.join("\n")}\n\n\n`);
    const shown = tail.split("\n");
    expect(shown).toHaveLength(SCREEN_LINES);
    expect(shown[0]).toBe("line 60");
    expect(shown.at(-1)).toBe("line 99");
    expect(tail).not.toContain(token);
    expect(shown[37]).toContain("[redacted");
    const pem = [
      "-----BEGIN OPENSSH PRIVATE KEY-----",
      ...Array.from({ length: 60 }, () => "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"),
      "-----END OPENSSH PRIVATE KEY-----",
    ];
    expect(screenTail(pem.join("\n"))).not.toContain("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ");
  });

  test("bounded: a wide line is cut, the whole at 16 KiB", () => {
    const tail = screenTail(Array.from({ length: 40 }, () => "x".repeat(10_000)).join("\n"));
    expect(tail.length).toBeLessThanOrEqual(16 * 1024);
    expect(tail.split("\n").every((l) => l.length <= 4097)).toBe(true);
  });
});

describe("a scout's report as a review (FOR-07, FOR-14's review)", () => {
  test("the report (outside the checkout, in the state dir's reports/) is reviewable; other files outside the project are not", () => {
    const w = world();
    const scout = taskFixture({ id: "6666666666666666", kind: "scout", status: "done", backend: "tmux", tmux_target: "vx-look" }) as Task;
    const report = reportPath(w.paths, scout);
    mkdirSync(w.paths.reportsDir, { recursive: true });
    writeFileSync(report, "# findings\n");
    expect(reviewableFile(report, w.project, w.project, w.paths.reportsDir)).toBe(realpathSync(report));
    expect(() => reviewableFile(report, w.project, w.project)).toThrow("it is outside this project");
    writeFileSync(join(w.base, "notes.md"), "x\n");
    expect(() => reviewableFile(join(w.base, "notes.md"), w.project, w.project, w.paths.reportsDir)).toThrow("it is outside this project");
    // Served from the reports dir, by its name there; a project file as before.
    expect(artifactPlace({ file: realpathSync(report), project_path: w.project }, realpathSync(w.paths.reportsDir))).toEqual({
      dir: realpathSync(w.paths.reportsDir),
      rel: "vx-look-6666666666666666.md",
    });
    // A state root reached through a symbolic link: the recorded real path is still found in it.
    symlinkSync(w.home, join(w.base, "home-link"));
    const linked = join(w.base, "home-link", ".vexillum", "projects", w.paths.key, "reports");
    expect(artifactPlace({ file: realpathSync(report), project_path: w.project }, linked)).toEqual({ dir: realpathSync(w.paths.reportsDir), rel: "vx-look-6666666666666666.md" });
    expect(artifactPlace({ file: "docs/plan.md", project_path: w.project }, w.paths.reportsDir)).toEqual({ dir: w.project, rel: "docs/plan.md" });
    expect(artifactPlace({ file: "/etc/passwd", project_path: w.project }, w.paths.reportsDir)).toEqual({ dir: w.project, rel: "etc/passwd" });
  });

  test("openReport: the session vx forum <report> opens (the same one openSession resumes); refusals before any path is touched", async () => {
    const w = world();
    const scout = taskFixture({ id: "7777777777777777", kind: "scout", status: "done", backend: "tmux", tmux_target: "vx-look" }) as Task;
    await createTask(w.paths, scout);
    await createTask(w.paths, taskFixture({ id: "8888888888888888", kind: "mission", status: "done" }) as Task);
    const ask = (body: Record<string, unknown>) => openReport(w.root, { project_path: w.project, ...body }, 5000);
    expect(await openReport(w.root, { project_path: "/nowhere", task_id: scout.id }, 5000)).toMatchObject({ status: 404, body: { error: "the forum knows no such project" } });
    expect(await ask({ task_id: "../../etc" })).toMatchObject({ status: 400 });
    expect(await ask({ task_id: "9999999999999999" })).toMatchObject({ status: 404 });
    expect(await ask({ task_id: "8888888888888888" })).toMatchObject({ status: 409, body: { error: "task 8888888888888888 is a mission: only a scout writes a report to review" } });
    expect(await ask({ task_id: scout.id })).toMatchObject({ status: 404, body: { error: `scout ${scout.id} has written no report yet` } });
    mkdirSync(w.paths.reportsDir, { recursive: true });
    writeFileSync(reportPath(w.paths, scout), "# findings\n");
    const opened = await ask({ task_id: scout.id });
    const same = await openSession(w.root, w.project, realpathSync(reportPath(w.paths, scout)), 6000);
    expect(opened).toEqual({ status: 200, body: { ok: true, session: same.session, url: `/s/${same.session}` } });
    expect(same).toMatchObject({ file: realpathSync(reportPath(w.paths, scout)), project_path: w.project, created_at: new Date(5000).toISOString() });
  });
});
