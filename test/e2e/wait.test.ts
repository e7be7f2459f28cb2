// `vx wait` end to end (WAIT-01..05): the compiled binary waits while the test plays the sentinel
// by rewriting the task file, or while a sentinel the command auto-started settles the task.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type HeldLock, tryLockExclusive } from "../../src/state/lock";
import { installFakeHerdr } from "../fakes/herdr-control";
import { type RunResult, type Sandbox, stopSentinels, taskFixture, vx, waitFor, writeTaskFile } from "../helpers";
import { initializedSandbox } from "../init-project";

const ID = "fedcba9876543210";

let held: HeldLock | undefined;
afterEach(() => {
  held?.release();
  held = undefined;
});

/** Holding the sentinel lock makes ensure-running see a live sentinel, so none is started. */
function holdSentinelLock(s: Sandbox): void {
  held = tryLockExclusive(join(s.home, ".vexillum", "sentinel.lock"));
  if (!held) throw new Error("sentinel lock already held");
}

function task(over: Record<string, unknown> = {}) {
  const at = "2026-11-30T10:00:00Z";
  return taskFixture({ id: ID, created_at: at, updated_at: at, camp_branch: `vexillum/${ID}`, ...over });
}

/** Written the way vx writes state (temp file, then rename), so the waiter never reads half a file. */
function writeTask(s: Sandbox, t: Record<string, unknown>): void {
  writeTaskFile(s.home, s.project, t);
}

const read = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : "");

/** Starts `vx wait`, and once its log shows it is waiting, plays each write in turn. */
async function waitWhile(s: Sandbox, args: string[], writes: Record<string, unknown>[], log: string): Promise<RunResult> {
  const run = vx(["wait", ID, "--log-file", log, ...args], { cwd: s.project, env: s.env });
  await waitFor(() => read(log).includes("VX_WAIT_START:"), 10_000, "the start line");
  for (const w of writes) {
    writeTask(s, task(w));
    // The next write only after the waiter reported this one, so no change is coalesced.
    await waitFor(() => read(log).includes(`status=${w.status}\n`) || read(log).includes("VX_WAIT_TIMEOUT"), 10_000, `status ${w.status}`);
  }
  return run;
}

describe("vx wait", () => {
  test("running -> done while waiting: status line, recorded tail, done, exit 0; log equals stdout", async () => {
    using s = await initializedSandbox({ VX_TIME_SCALE: "0.01" });
    holdSentinelLock(s);
    writeTask(s, task({ status: "pending" }));
    const log = join(s.home, "wait.log");
    const r = await waitWhile(s, [], [{ status: "running" }, { status: "done", output: "all tests pass\n\n[vexillum] a note\n" }], log);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `VX_WAIT_START: task=${ID} status=pending poll=0.05s max_wait=72s log=${log}`,
        `VX_WAIT_STATUS: task=${ID} status=running`,
        `VX_WAIT_STATUS: task=${ID} status=done`,
        "VX_WAIT_NOTE: [vexillum] a note",
        `VX_WAIT_PANE_TAIL: task=${ID} lines=3 source=recorded`,
        "all tests pass",
        "",
        "[vexillum] a note",
        `VX_WAIT_DONE: task=${ID} status=done`,
        "",
      ].join("\n"),
    );
    expect(read(log)).toBe(r.stdout);
  });

  test("blocked: question and terminal, exit 2; explicit durations are not scaled", async () => {
    using s = await initializedSandbox({ VX_TIME_SCALE: "0.01" });
    holdSentinelLock(s);
    writeTask(s, task());
    const decision = { question: "Postgres or SQLite?", options: [], asked_at: "2026-11-30T12:00:00Z", kind: "prose" };
    const log = join(s.home, "wait.log");
    const r = await waitWhile(s, ["--poll-interval", "0.02", "--max-wait", "30", "--pane-tail-lines", "0"], [{ status: "blocked", decision }], log);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(
      [
        `VX_WAIT_START: task=${ID} status=running poll=0.02s max_wait=30s log=${log}`,
        `VX_WAIT_STATUS: task=${ID} status=blocked`,
        "VX_WAIT_QUESTION: Postgres or SQLite?",
        `VX_WAIT_TERMINAL: task=${ID} status=blocked`,
        "",
      ].join("\n"),
    );
  });

  test("max wait reached: the tail, then the timeout line, exit 124", async () => {
    using s = await initializedSandbox({ VX_TIME_SCALE: "0.01" });
    holdSentinelLock(s);
    writeTask(s, task({ output: "still thinking" }));
    const r = await vx(["wait", ID, "--poll-interval", "0.05", "--max-wait", "0.2"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(124);
    const lines = r.stdout.split("\n");
    expect(lines.slice(0, 3)).toEqual([`VX_WAIT_START: task=${ID} status=running poll=0.05s max_wait=0.2s log=-`, `VX_WAIT_PANE_TAIL: task=${ID} lines=1 source=recorded`, "still thinking"]);
    expect(lines[3]).toMatch(new RegExp(`^VX_WAIT_TIMEOUT: 0\\.2\\d{0,2}s max_wait=0\\.2s task=${ID}$`));
    expect(lines.slice(4)).toEqual([""]);
  });

  test("a task already finished is reported at once; no sentinel is started for it", async () => {
    using s = await initializedSandbox({ VX_TIME_SCALE: "0.01" });
    writeTask(s, task({ status: "unconfirmed", output: "x\n\n[vexillum] marked unconfirmed" }));
    const r = await vx(["wait", ID, "--pane-tail-lines", "0"], { cwd: s.project, env: s.env });
    expect(r).toEqual({
      code: 2,
      stdout: [`VX_WAIT_START: task=${ID} status=unconfirmed poll=0.05s max_wait=72s log=-`, "VX_WAIT_NOTE: [vexillum] marked unconfirmed", `VX_WAIT_TERMINAL: task=${ID} status=unconfirmed`, ""].join(
        "\n",
      ),
      stderr: "",
    });
    expect(existsSync(join(s.home, ".vexillum", "sentinel.pid"))).toBe(false);
  });

  test("errors: no task (1), unopenable log file (1), bad flag (64)", async () => {
    using s = await initializedSandbox({ VX_TIME_SCALE: "0.01" });
    expect(await vx(["wait", ID], { cwd: s.project, env: s.env })).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: no task ${ID} in this project - 'vx status' lists its tasks\n`,
    });
    writeTask(s, task({ status: "done" }));
    const bad = join(s.home, "missing", "w.log");
    expect(await vx(["wait", ID, "--log-file", bad], { cwd: s.project, env: s.env })).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: cannot open log file ${bad}: ENOENT: no such file or directory\n`,
    });
    const r = await vx(["wait", ID, "--max-wait", "never"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith('vx: invalid --max-wait "never": expected a positive number of seconds\n');
  });

  test("auto-starts the sentinel, which settles the soldier it cannot find; the waiter reports it", async () => {
    using s = await initializedSandbox({ VX_TIME_SCALE: "0.01" });
    // The sentinel's herdr is the fake, with no agents: the soldier is gone.
    Object.assign(s.env, installFakeHerdr(s.bin));
    const past = new Date(Date.now() - 3_600_000).toISOString();
    writeTask(s, task({ backend: "herdr", herdr_agent_name: "vx-fix-login", harness: "claude", updated_at: past, output: "working" }));
    let pid: number | undefined;
    try {
      const r = await vx(["wait", ID, "--max-wait", "20"], { cwd: s.project, env: s.env });
      pid = Number(/auto-started sentinel \(pid (\d+)\)/.exec(r.stderr)?.[1]);
      expect(r.stderr).toBe(`vx: auto-started sentinel (pid ${pid}), logging to ${join(s.home, ".vexillum", "sentinel.log")}\n`);
      expect(r.code).toBe(2);
      const lines = r.stdout.split("\n");
      expect(lines[1]).toBe(`VX_WAIT_STATUS: task=${ID} status=interrupted`);
      expect(lines[2]).toStartWith("VX_WAIT_NOTE: [vexillum] this soldier's herdr agent disappeared");
      expect(lines.at(-2)).toBe(`VX_WAIT_TERMINAL: task=${ID} status=interrupted`);
    } finally {
      await stopSentinels(s.home, pid ? [pid] : []);
    }
  });

  test("a sentinel that exits at once is not called auto-started: the warning says what happened", async () => {
    using s = await initializedSandbox({ VX_TIME_SCALE: "0.01" });
    Object.assign(s.env, installFakeHerdr(s.bin));
    writeTask(s, task({ backend: "herdr", herdr_agent_name: "vx-fix-login", harness: "claude", output: "working" }));
    // The started sentinel cannot write sentinel.json and exits 1 at once.
    mkdirSync(join(s.home, ".vexillum", "sentinel.json"));
    const r = await vx(["wait", ID, "--max-wait", "0.5"], { cwd: s.project, env: s.env });
    const log = join(s.home, ".vexillum", "sentinel.log");
    expect(r.stderr).not.toContain("auto-started");
    expect(r.stderr).toStartWith(`vx: warning: could not auto-start the sentinel: it exited at once (see ${log}) - run 'vx sentinel' yourself in the background\n`);
  });
});
