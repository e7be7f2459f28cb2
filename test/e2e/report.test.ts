// `vx report` (CMD-REPORT-01/02): a harness hook records a soldier's state, and nothing else.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { newTaskId } from "../../src/state/ids";
import { taskPath } from "../../src/state/tasks";
import { field, seedTask } from "./soldier-field";

const stateFile = (dir: string, id: string) => JSON.parse(readFileSync(join(dir, `${id}.json`), "utf8"));

describe("vx report", () => {
  test("from the camp: writes states/<id>.json and touches nothing else", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "running" });
    const before = readFileSync(taskPath(f.paths, task.id), "utf8");
    const sub = join(task.camp_path!, "src", "deep");
    mkdirSync(sub, { recursive: true });
    const r = await f.run(["report", "working"], { cwd: sub, env: { ...f.env, VX_HARNESS: "claude" } });
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: "" });
    const s = stateFile(f.paths.statesDir, task.id);
    expect(Object.keys(s)).toEqual(["task_id", "state", "at", "source"]);
    expect(s).toMatchObject({ task_id: task.id, state: "working", source: "claude" });
    expect(Date.parse(s.at)).toBeGreaterThan(0);
    expect(readFileSync(taskPath(f.paths, task.id), "utf8")).toBe(before);
    expect(existsSync(f.paths.wakesDir) ? readdirSync(f.paths.wakesDir) : []).toEqual([]);
  });

  test("VX_TASK_ID from anywhere; a trailing Codex notify payload is ignored; the latest report wins", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "running" });
    const env = { ...f.env, VX_TASK_ID: task.id };
    expect((await f.run(["report", "working"], { cwd: f.home, env })).code).toBe(0);
    const payload = JSON.stringify({ type: "agent-turn-complete", "thread-id": "t1", "last-assistant-message": "done" });
    const r = await f.run(["report", "idle", payload], { cwd: f.home, env });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(stateFile(f.paths.statesDir, task.id)).toMatchObject({ task_id: task.id, state: "idle" });
    expect(stateFile(f.paths.statesDir, task.id).source).toBeUndefined();
  });

  test("refusals: an unknown state is 64; outside a camp, an unknown or malformed VX_TASK_ID is 1; never 2", async () => {
    await using f = await field();
    const bad = await f.run(["report", "done"]);
    expect(bad).toMatchObject({ code: 64 });
    expect(bad.stderr).toContain('unknown state "done", expected working, idle or blocked');
    const outside = await f.run(["report", "idle"], { cwd: f.home });
    expect(outside).toMatchObject({ code: 1, stderr: `vx: report: not inside a vx camp (no VX_TASK_ID, and ${f.home} is not a leased camp)\n` });
    const ghost = newTaskId();
    const unknown = await f.run(["report", "idle"], { cwd: f.home, env: { ...f.env, VX_TASK_ID: ghost } });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`no task ${ghost}`);
    const malformed = await f.run(["report", "idle"], { cwd: f.home, env: { ...f.env, VX_TASK_ID: "../../etc" } });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('VX_TASK_ID "../../etc" is not a task id');
    expect(existsSync(f.paths.statesDir)).toBe(false);
  });

  test("a camp whose lease was released is not a camp to report from", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "done", leased: false });
    const r = await f.run(["report", "idle"], { cwd: task.camp_path! });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not a leased camp");
  });
});
