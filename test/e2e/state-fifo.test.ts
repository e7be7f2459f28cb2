// A FIFO planted where vx keeps a file (issue 15, item 11): every command that reads it, and the
// sentinel, returns at once with a one-line error naming it, instead of waiting for a writer that
// never comes. Each vx runs as a real process under a guard that kills it, so a regression fails
// the test instead of hanging the suite.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stateDirPaths } from "../../src/state/paths";
import { VX_BIN, type RunResult, waitFor } from "../helpers";
import { field, seedTask } from "./soldier-field";

const ID = "0123456789abcdef";
const GUARD_MS = 20_000;
const NOT_REGULAR = "is a named pipe (FIFO), not a regular file - vx leaves it as it is; remove it or move it aside";

type Guarded = RunResult & { killed: boolean };

/** Runs the compiled vx, killing it (and saying so) when it outlives the guard. */
async function guarded(args: string[], opts: { cwd: string; env: Record<string, string> }): Promise<Guarded> {
  const proc = Bun.spawn([VX_BIN, ...args], { cwd: opts.cwd, env: opts.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let killed = false;
  const guard = setTimeout(() => {
    killed = true;
    proc.kill("SIGKILL");
  }, GUARD_MS);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr, killed };
  } finally {
    clearTimeout(guard);
  }
}

function mkfifo(path: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  rmSync(path, { recursive: true, force: true });
  execFileSync("mkfifo", [path]);
}

describe("a FIFO in place of a file vx reads", () => {
  test("tasks/<id>.json: vx status fails at once naming it", async () => {
    await using f = await field();
    const fifo = join(f.paths.tasksDir, `${ID}.json`);
    mkfifo(fifo);
    const r = await guarded(["status"], { cwd: f.project, env: f.env });
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: ${fifo}: ${NOT_REGULAR}\n`, killed: false });
  });

  test(".vexillum/config.json: vx status fails at once naming it", async () => {
    await using f = await field();
    const fifo = join(f.project, ".vexillum", "config.json");
    mkfifo(fifo);
    const r = await guarded(["status"], { cwd: f.project, env: f.env });
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: ${fifo}: ${NOT_REGULAR}\n`, killed: false });
  });

  test("project.json: vx init fails at once naming it", async () => {
    await using f = await field();
    const fifo = join(f.paths.stateDir, "project.json");
    mkfifo(fifo);
    const r = await guarded(["init", "--yes"], { cwd: f.project, env: f.env });
    expect(r.killed).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toEndWith(`vx: ${fifo}: ${NOT_REGULAR}\n`);
  });

  test("camps/pool.json: vx report from a camp fails at once naming it", async () => {
    await using f = await field();
    const camp = join(f.paths.campsDir, "1", "project");
    mkdirSync(camp, { recursive: true });
    mkfifo(f.paths.poolFile);
    const r = await guarded(["report", "idle"], { cwd: camp, env: f.env });
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: ${f.paths.poolFile}: ${NOT_REGULAR}\n`, killed: false });
  });

  test("commanders.json: vx doctor reports it and finishes", async () => {
    await using f = await field();
    mkfifo(f.paths.commandersFile);
    const r = await guarded(["doctor"], { cwd: f.project, env: f.env });
    expect(r.killed).toBe(false);
    expect(r.stdout).toContain(`${f.paths.commandersFile}: ${NOT_REGULAR}`);
  });

  test("a task's operation lock: vx strike fails at once naming it", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "done" });
    const fifo = join(f.paths.tasksDir, `.${task.id}.op.lock`);
    mkfifo(fifo);
    const r = await guarded(["strike", task.id], { cwd: f.project, env: f.env });
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: ${fifo}: ${NOT_REGULAR}\n`, killed: false });
  });

  test("sentinel.log: vx dispatch warns that it could not start the sentinel, and dispatches", async () => {
    await using f = await field();
    const fifo = join(f.home, ".vexillum", "sentinel.log");
    mkfifo(fifo);
    const r = await guarded(["dispatch", "fix the login bug"], { cwd: f.project, env: f.env });
    expect(r.killed).toBe(false);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`vx: warning: could not auto-start the sentinel: ${fifo}: ${NOT_REGULAR} - run 'vx sentinel' yourself in the background\n`);
    expect(r.stdout).toStartWith("task_id=");
  });

  test("states/<id>.json: vx report replaces it at once, saying so", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "running" });
    const fifo = join(f.paths.statesDir, `${task.id}.json`);
    mkfifo(fifo);
    const r = await guarded(["report", "idle"], { cwd: task.camp_path!, env: f.env });
    expect(r).toEqual({
      code: 0,
      stdout: "",
      stderr: `vx: warning: replaced the corrupt soldier state ${fifo} (is a named pipe (FIFO), not a regular file)\n`,
      killed: false,
    });
    expect(JSON.parse(readFileSync(fifo, "utf8"))).toMatchObject({ task_id: task.id, state: "idle" });
  });

  test("the sentinel: FIFOs in one project's state dir are logged, and another project still gets its wake", async () => {
    await using f = await field();
    // Project B (the field's): a running soldier whose pane is blocked, so the first pass settles it.
    const { task } = await seedTask(f, { status: "running", agentStatus: "blocked" });
    // Project A: every file the sentinel reads in a state dir is a FIFO, and a wake is pending so
    // its commanders.json is read too.
    const a = stateDirPaths(join(f.home, ".vexillum", "projects", "other-0badf00d"));
    const fifos = [join(a.tasksDir, `${ID}.json`), join(a.stateDir, "project.json"), a.commandersFile, a.poolFile];
    for (const p of fifos) mkfifo(p);
    mkdirSync(a.wakesDir, { recursive: true });
    writeFileSync(join(a.wakesDir, `${ID}.json`), "{}\n");

    const proc = Bun.spawn([VX_BIN, "sentinel"], { cwd: f.home, env: f.env, stdout: "pipe", stderr: "pipe" });
    let out = "";
    const reader = (async () => {
      for await (const chunk of proc.stdout) out += new TextDecoder().decode(chunk);
    })();
    try {
      await waitFor(() => existsSync(f.paths.wakesDir) && readdirSync(f.paths.wakesDir).includes(`${task.id}.json`), GUARD_MS, "project B's wake");
      await waitFor(() => out.includes(`sentinel: skipping ${fifos[0]}: ${NOT_REGULAR}`), GUARD_MS, "project A's task FIFO in the log");
      expect(f.task(task.id).status).toBe("blocked");
    } finally {
      // A sentinel stuck in open(2) on a FIFO may not get to its SIGTERM handler: the guard kills it.
      const guard = setTimeout(() => proc.kill("SIGKILL"), GUARD_MS);
      proc.kill("SIGTERM");
      await proc.exited;
      clearTimeout(guard);
      await reader;
    }
  });
});
