// `vx status` end to end (TSK-08..10, STA-07, STA-08).
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { reportPath } from "../../src/lifecycle/observe";
import type { Task } from "../../src/state/schemas";
import { projectKey, projectPaths } from "../../src/state/paths";
import { type Sandbox, git, sandbox, taskFixture, vx, writeTaskFile } from "../helpers";
import { initializedSandbox } from "../init-project";

function tasksDir(s: Sandbox): string {
  return join(s.home, ".vexillum", "projects", projectKey(s.project), "tasks");
}

function writeTask(s: Sandbox, t: Record<string, unknown>): string {
  return writeTaskFile(s.home, s.project, t);
}

function task(id: string, over: Record<string, unknown> = {}) {
  const at = "2026-11-30T10:00:00Z";
  return taskFixture({ id, created_at: at, updated_at: at, camp_branch: `vexillum/${id}`, ...over });
}

describe("vx status", () => {
  test("no tasks", async () => {
    using s = await initializedSandbox();
    expect(await vx(["status"], { cwd: s.project, env: s.env })).toEqual({ code: 0, stdout: "no tasks yet in this project.\n", stderr: "" });
  });

  test("text: newest first, ties by id, padded columns, prompt cut at 60, question line", async () => {
    using s = await initializedSandbox();
    const long = "refactor   the\nwhole payments module so that every provider shares one retry policy";
    writeTask(s, task("bbbbbbbbbbbbbbbb", { updated_at: "2026-11-30T11:00:00Z", prompt: long }));
    writeTask(
      s,
      task("aaaaaaaaaaaaaaaa", {
        updated_at: "2026-11-30T11:00:00Z",
        kind: "scout",
        status: "blocked",
        decision: { question: "Postgres or SQLite?", options: [], asked_at: "2026-11-30T11:00:00Z", kind: "prose" },
      }),
    );
    writeTask(s, task("cccccccccccccccc", { updated_at: "2026-11-30T12:00:00Z", status: "done" }));
    const r = await vx(["status"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "cccccccccccccccc  mission  done         vexillum/cccccccccccccccc  fix the login bug",
        "aaaaaaaaaaaaaaaa  scout    blocked      vexillum/aaaaaaaaaaaaaaaa  fix the login bug",
        "    question: Postgres or SQLite?",
        "bbbbbbbbbbbbbbbb  mission  running      vexillum/bbbbbbbbbbbbbbbb  refactor the whole payments module so that every provider sh...",
        "",
      ].join("\n"),
    );
  });

  test("why a task failed, and where a scout's report is, in text and --json", async () => {
    using s = await initializedSandbox();
    const failed = task("eeeeeeeeeeeeeeee", { status: "failed", output: 'some work\n[vexillum] claude exited in its tmux pane before it became ready (its last output: "no key") - marked failed.' });
    const scout = task("ffffffffffffffff", { kind: "scout", status: "done", updated_at: "2026-11-30T09:00:00Z" });
    writeTask(s, failed);
    writeTask(s, scout);
    const report = reportPath(projectPaths(join(s.home, ".vexillum"), s.project), scout as unknown as Task);
    mkdirSync(dirname(report), { recursive: true });
    writeFileSync(report, "# findings\n");
    // A failed task is out of the default view (TSK-12): `--all` lists it.
    const r = await vx(["status", "--all"], { cwd: s.project, env: s.env });
    expect(r.stdout).toBe(
      [
        "eeeeeeeeeeeeeeee  mission  failed       vexillum/eeeeeeeeeeeeeeee  fix the login bug",
        '    why: claude exited in its tmux pane before it became ready (its last output: "no key") - marked failed.',
        "ffffffffffffffff  scout    done         vexillum/ffffffffffffffff  fix the login bug",
        `    report: ${report}`,
        "",
      ].join("\n"),
    );
    const doc = JSON.parse((await vx(["status", "--json"], { cwd: s.project, env: s.env })).stdout);
    expect(doc.reports).toEqual({ ffffffffffffffff: report });
    const shortView = await vx(["status"], { cwd: s.project, env: s.env });
    expect(shortView.stdout).toBe(
      `ffffffffffffffff  scout    done         vexillum/ffffffffffffffff  fix the login bug\n    report: ${report}\n1 landed, struck or failed task not shown - vx status --all shows them\n`,
    );
  });

  test("escape sequences in a prompt, a question or an argument are shown, not sent to the terminal", async () => {
    using s = await initializedSandbox();
    const question = "\u001b]0;owned\u0007really?";
    writeTask(s, task("aaaaaaaaaaaaaaaa", { prompt: "\u001b[2Jwipe", status: "blocked", decision: { question, options: [], asked_at: "2026-11-30T11:00:00Z", kind: "prose" } }));
    const r = await vx(["status"], { cwd: s.project, env: s.env });
    expect(r.stdout).toContain("\\x1b[2Jwipe");
    expect(r.stdout).toContain("    question: \\x1b]0;owned\\x07really?");
    expect(r.stdout).not.toContain("\u001b");
    const bad = await vx(["status", "--\u001b[31mred"], { cwd: s.project, env: s.env });
    expect(bad.code).toBe(64);
    expect(bad.stderr).toStartWith('vx: unknown status flag "--\\x1b[31mred"\n');
  });

  test("--json: the envelope, tasks exactly as persisted with unknown fields", async () => {
    using s = await initializedSandbox();
    writeTask(s, task("dddddddddddddddd", { future_field: { x: 1 } }));
    const r = await vx(["status", "--json"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toEndWith("}\n");
    expect(r.stdout).toContain('\n  "tasks": [\n');
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(["schema_version", "generated_at", "project_root", "tasks", "usage", "usage_total"]);
    expect(doc.usage).toEqual({ dddddddddddddddd: { unknown: "no camp recorded for this task" } });
    expect(doc.project_root).toBe(join(s.home, ".vexillum", "projects", projectKey(s.project)));
    expect(doc.tasks).toEqual([task("dddddddddddddddd", { future_field: { x: 1 } })]);
    using empty = await initializedSandbox();
    const none = JSON.parse((await vx(["status", "--json"], { cwd: empty.project, env: empty.env })).stdout);
    expect(none.tasks).toEqual([]);
    expect(Object.keys(none)).toEqual(["schema_version", "generated_at", "project_root", "tasks"]);
  });

  test.each(["--every", "--no-json", "--json=1", "-j"])("any other flag (%s): unknown status flag, exit 64", async (flag) => {
    using s = await initializedSandbox();
    const r = await vx(["status", flag], { cwd: s.project, env: s.env });
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith(`vx: unknown status flag "${flag}"\n`);
  });

  test("a task file with invalid JSON: exit 1 naming the file, file untouched", async () => {
    using s = await initializedSandbox();
    writeTask(s, task("eeeeeeeeeeeeeeee"));
    const bad = join(tasksDir(s), "ffffffffffffffff.json");
    writeFileSync(bad, '{"id": "ffff');
    const r = await vx(["status"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toStartWith(`vx: ${bad}: invalid JSON`);
    expect(r.stderr).toEndWith(" - vx leaves it as it is; repair it or move it aside\n");
    expect(readFileSync(bad, "utf8")).toBe('{"id": "ffff');
  });

  test("schema_version 9: refused with the spec's message", async () => {
    using s = await initializedSandbox();
    const path = writeTask(s, task("9999999999999999", { schema_version: 9 }));
    const r = await vx(["status", "--json"], { cwd: s.project, env: s.env });
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: ${path}: unsupported schema version 9 (expected 1)\n` });
  });

  test("not initialized", async () => {
    using s = sandbox();
    const r = await vx(["status"], { cwd: s.project, env: s.env });
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: project not initialized, run 'vx init' first\n" });
  });

  test("from inside a camp directory it refuses", async () => {
    using s = await initializedSandbox();
    const camp = join(s.home, ".vexillum", "projects", projectKey(s.project), "camps", "1", "project");
    mkdirSync(join(camp, "src"), { recursive: true });
    git(camp, "init", "-q");
    const r = await vx(["status"], { cwd: join(camp, "src"), env: s.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`vx: running from inside ${join(camp, "src")}, which looks like a vexillum-managed camp, not a project root - cd back to the real project and try again\n`);
  });

  test("a subdirectory of the project sees the same tasks", async () => {
    using s = await initializedSandbox();
    writeTask(s, task("1111111111111111"));
    mkdirSync(join(s.project, "sub"));
    const r = await vx(["status"], { cwd: join(s.project, "sub"), env: s.env });
    expect(r.stdout).toContain("1111111111111111");
  });
});
