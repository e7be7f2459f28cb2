// `vx report` (CMD-REPORT-01/02): a harness hook records a soldier's state, and nothing else.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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

  test("from one soldier's camp, another task's VX_TASK_ID is refused and that task's state is untouched", async () => {
    await using f = await field();
    const a = (await seedTask(f, { status: "running" })).task;
    const b = (await seedTask(f, { status: "running" })).task;
    expect((await f.run(["report", "working"], { cwd: b.camp_path!, env: { ...f.env, VX_TASK_ID: b.id } })).code).toBe(0);
    const before = readFileSync(join(f.paths.statesDir, `${b.id}.json`), "utf8");
    const r = await f.run(["report", "idle"], { cwd: a.camp_path!, env: { ...f.env, VX_TASK_ID: b.id } });
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: report: VX_TASK_ID is ${b.id} but ${a.camp_path} is in the camp of task ${a.id} - a soldier reports only from its own camp\n`,
    });
    expect(readFileSync(join(f.paths.statesDir, `${b.id}.json`), "utf8")).toBe(before);
    expect(existsSync(join(f.paths.statesDir, `${a.id}.json`))).toBe(false);
    // Its own id from its own camp is what a tmux soldier's hook sends.
    expect((await f.run(["report", "idle"], { cwd: a.camp_path!, env: { ...f.env, VX_TASK_ID: a.id } })).code).toBe(0);
    expect(stateFile(f.paths.statesDir, a.id)).toMatchObject({ task_id: a.id, state: "idle" });
  });

  test("a corrupt pool.json: a soldier's own VX_TASK_ID from its own camp still reports; another's is refused naming the pool", async () => {
    await using f = await field();
    const a = (await seedTask(f, { status: "running" })).task;
    const b = (await seedTask(f, { status: "running" })).task;
    writeFileSync(join(f.paths.campsDir, "pool.json"), "{ half");
    const own = await f.run(["report", "idle"], { cwd: a.camp_path!, env: { ...f.env, VX_TASK_ID: a.id } });
    expect(own).toMatchObject({ code: 0, stderr: "" });
    expect(stateFile(f.paths.statesDir, a.id)).toMatchObject({ task_id: a.id, state: "idle" });
    const other = await f.run(["report", "idle"], { cwd: a.camp_path!, env: { ...f.env, VX_TASK_ID: b.id } });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(join(f.paths.campsDir, "pool.json"));
    expect(existsSync(join(f.paths.statesDir, `${b.id}.json`))).toBe(false);
  });

  describe("a corrupt states/<id>.json is replaced by the next report, saying so", () => {
    const outside = () => mkdtempSync(join(tmpdir(), "vx-outside-"));
    const cases: [string, string, (path: string, out: string) => void][] = [
      ["empty", "invalid JSON", (p) => writeFileSync(p, "")],
      ["not JSON", "invalid JSON", (p) => writeFileSync(p, "{ half")],
      ["a JSON array", "expected a JSON object", (p) => writeFileSync(p, "[]\n")],
      [
        "a directory holding a link out",
        "is a directory, not a regular file",
        (p, out) => {
          mkdirSync(p);
          symlinkSync(out, join(p, "link"));
        },
      ],
      ["a link to a file elsewhere", "is a symbolic link, which vx refuses inside its state dir", (p, out) => symlinkSync(join(out, "keep"), p)],
      ["a dangling link", "is a symbolic link, which vx refuses inside its state dir", (p, out) => symlinkSync(join(out, "absent"), p)],
    ];
    test.each(cases)("%s", async (_name, reason, plant) => {
      await using f = await field();
      const out = outside();
      try {
        writeFileSync(join(out, "keep"), "not vx's\n");
        const { task } = await seedTask(f, { status: "running" });
        const path = join(f.paths.statesDir, `${task.id}.json`);
        mkdirSync(f.paths.statesDir, { recursive: true });
        plant(path, out);
        const r = await f.run(["report", "idle"], { cwd: task.camp_path! });
        expect(r.code).toBe(0);
        expect(r.stderr).toStartWith(`vx: warning: replaced the corrupt soldier state ${path} (${reason}`);
        expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
        expect(stateFile(f.paths.statesDir, task.id)).toMatchObject({ task_id: task.id, state: "idle" });
        // Nothing reached through a link was touched.
        expect(readdirSync(out).sort()).toEqual(["keep"]);
        expect(readFileSync(join(out, "keep"), "utf8")).toBe("not vx's\n");
        // And the next report finds a sound file: no warning.
        expect(await f.run(["report", "working"], { cwd: task.camp_path! })).toMatchObject({ code: 0, stderr: "" });
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  });
});
