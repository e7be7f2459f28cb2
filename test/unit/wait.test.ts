// `vx wait` in process (WAIT-01..05): a scripted fake clock drives the polls, the task file is a
// real file the "sentinel" (the test) rewrites between polls, the pane is the fake herdr.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/main";
import { parseWaitOptions, redactedTail, shortSeconds, waitForTask, type WaitOptions } from "../../src/soldiers/wait";
import { type ProjectPaths, projectPaths } from "../../src/state/paths";
import type { Task } from "../../src/state/schemas";
import { createTask, taskPath, updateTask } from "../../src/state/tasks";
import type { Clock } from "../../src/time";
import { type TestDeps, testDeps } from "../deps";
import { addAgent, callsOf, createWorkspace, type FakeHerdrEnv, installFakeHerdr, removeAgent, setPaneText } from "../fakes/herdr-control";
import { type Sandbox, sandbox, taskFixture } from "../helpers";

const ID = "0123456789abcdef";
const T0 = Date.parse("2026-11-30T12:00:00Z");
const TRUE = Bun.which("true") ?? "/bin/true";

let box: Sandbox;
let paths: ProjectPaths;

beforeEach(() => {
  box = sandbox();
  mkdirSync(join(box.project, ".vexillum"), { recursive: true });
  writeFileSync(join(box.project, ".vexillum", "config.json"), JSON.stringify({ version: 1, initialized_at: "2026-11-30T10:00:00Z", vx_version: "0.1.0" }));
  paths = projectPaths(join(box.home, ".vexillum"), box.project);
});
afterEach(() => box[Symbol.dispose]());

function task(over: Partial<Task> = {}): Task {
  return taskFixture({ id: ID, ...over });
}

type Step = () => void | Promise<void>;

/** A clock whose n-th sleep advances time and then plays step n (the sentinel's next write). */
function scriptedClock(steps: Step[] = []): Clock & { sleeps: number[]; step(ms: number): void } {
  let now = T0;
  let mono = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    monotonic: () => mono,
    async sleep(ms) {
      now += ms;
      mono += ms;
      sleeps.push(ms);
      await steps[sleeps.length - 1]?.();
    },
    // The wall clock alone, as NTP steps it.
    step(ms) {
      now += ms;
    },
  };
}

const setStatus =
  (over: Partial<Task>): Step =>
  async () => {
    await updateTask(paths, ID, (t) => ({ ...t, ...over }));
  };

function deps(clock: Clock, env: Record<string, string> = {}): TestDeps {
  const d = testDeps({ cwd: box.project, env: { ...box.env, ...env }, clock });
  // Ensure-running spawns `<self> sentinel`; a no-op program keeps the test free of daemons.
  d.self = [TRUE];
  return d;
}

function options(over: Partial<WaitOptions> = {}): WaitOptions {
  return { taskId: ID, pollMs: 5000, maxWaitMs: 7_200_000, paneTailLines: 80, ...over };
}

const lines = (d: TestDeps) => d.text().stdout.split("\n").slice(0, -1);

describe("flag validation (WAIT-01)", () => {
  const rows: { argv: string[]; message: string }[] = [
    { argv: [], message: "missing task id" },
    { argv: ["XYZ"], message: 'invalid task id "XYZ": expected 16 lowercase hex characters, or a unique prefix of at least 4' },
    { argv: [ID, ID], message: `unexpected argument "${ID}"` },
    { argv: [ID, "--poll-interval", "0"], message: 'invalid --poll-interval "0": expected a positive number of seconds' },
    { argv: [ID, "--poll-interval", "-1"], message: 'invalid --poll-interval "-1": expected a positive number of seconds' },
    { argv: [ID, "--poll-interval=abc"], message: 'invalid --poll-interval "abc": expected a positive number of seconds' },
    { argv: [ID, "--poll-interval=Infinity"], message: 'invalid --poll-interval "Infinity": expected a positive number of seconds' },
    { argv: [ID, "--poll-interval="], message: 'invalid --poll-interval "": expected a positive number of seconds' },
    { argv: [ID, "--max-wait", "0"], message: 'invalid --max-wait "0": expected a positive number of seconds' },
    { argv: [ID, "--max-wait", "5s"], message: 'invalid --max-wait "5s": expected a positive number of seconds' },
    { argv: [ID, "--pane-tail-lines", "-1"], message: 'invalid --pane-tail-lines "-1": expected a non-negative integer' },
    { argv: [ID, "--pane-tail-lines", "1.5"], message: 'invalid --pane-tail-lines "1.5": expected a non-negative integer' },
    { argv: [ID, "--pane-tail-lines", "many"], message: 'invalid --pane-tail-lines "many": expected a non-negative integer' },
    { argv: [ID, "--poll-interval"], message: "missing value for --poll-interval" },
    { argv: [ID, "--forever"], message: 'unknown flag "--forever"' },
  ];
  test.each(rows)("$argv -> 64", async ({ argv, message }) => {
    const d = deps(scriptedClock());
    expect(await main(["wait", ...argv], d)).toBe(64);
    expect(d.text().stderr).toStartWith(`vx: ${message}\nUsage: vx wait <task-id>`);
    expect(d.text().stdout).toBe("");
  });

  test("defaults are scaled by VX_TIME_SCALE, values given on the command line are not", () => {
    const env = { VX_TIME_SCALE: "0.01" };
    expect(parseWaitOptions([ID], {}, { env, cwd: "/p" })).toEqual(options({ pollMs: 50, maxWaitMs: 72_000 }));
    const given = parseWaitOptions([ID], { pollInterval: "2", maxWait: "0.5", paneTailLines: "0", logFile: "w.log" }, { env, cwd: "/p" });
    expect(given).toEqual(options({ pollMs: 2000, maxWaitMs: 500, paneTailLines: 0, logFile: "/p/w.log" }));
  });

  test("seconds print in their shortest form", () => {
    expect([5000, 50, 7_200_000, 72_000, 1500, 0.3 * 7_200_000].map(shortSeconds)).toEqual(["5", "0.05", "7200", "72", "1.5", "2160"]);
  });
});

describe("waiting", () => {
  test("pending -> running -> done: a status line per change, tail, done, exit 0, sentinel ensured", async () => {
    await createTask(paths, task({ status: "pending" }));
    const clock = scriptedClock([
      () => {},
      setStatus({ status: "running" }),
      setStatus({ updated_at: "2026-11-30T10:00:05.000Z" }),
      setStatus({ status: "done", output: "wrote the fix\nall tests pass\n\n" }),
    ]);
    const d = deps(clock);
    expect(await waitForTask(d, options())).toBe(0);
    expect(lines(d)).toEqual([
      `VX_WAIT_START: task=${ID} status=pending poll=5s max_wait=7200s log=-`,
      `VX_WAIT_STATUS: task=${ID} status=running`,
      `VX_WAIT_STATUS: task=${ID} status=done`,
      `VX_WAIT_PANE_TAIL: task=${ID} lines=2 source=recorded`,
      "wrote the fix",
      "all tests pass",
      `VX_WAIT_DONE: task=${ID} status=done`,
    ]);
    expect(clock.sleeps).toEqual([5000, 5000, 5000, 5000]);
    // The in-process deps' "vx" is `false`: the start is attempted and reported as the failure it is (SEN-23).
    expect(d.text().stderr).toBe(
      `vx: warning: could not auto-start the sentinel: it exited at once (see ${join(box.home, ".vexillum", "sentinel.log")}) - run 'vx sentinel' yourself in the background\n`,
    );
  });

  test("read-only: the task file is exactly as the sentinel left it and no wake is touched", async () => {
    await createTask(paths, task());
    mkdirSync(paths.wakesDir, { recursive: true });
    writeFileSync(join(paths.wakesDir, `${ID}.json`), '{"keep":"me"}');
    let after = "";
    const clock = scriptedClock([
      async () => {
        await setStatus({ status: "unconfirmed" })();
        after = readFileSync(taskPath(paths, ID), "utf8");
      },
    ]);
    const d = deps(clock);
    expect(await waitForTask(d, options())).toBe(2);
    expect(readFileSync(taskPath(paths, ID), "utf8")).toBe(after);
    expect(readdirSync(paths.wakesDir)).toEqual([`${ID}.json`]);
    expect(readFileSync(join(paths.wakesDir, `${ID}.json`), "utf8")).toBe('{"keep":"me"}');
  });

  test("blocked: the question, then terminal, exit 2", async () => {
    await createTask(paths, task());
    const decision = { question: "Postgres\n  or SQLite?", options: [], asked_at: "2026-11-30T12:00:05.000Z", kind: "prose" as const };
    const d = deps(scriptedClock([setStatus({ status: "blocked", decision, output: "needs-decision: Postgres or SQLite?" })]));
    expect(await waitForTask(d, options({ paneTailLines: 0 }))).toBe(2);
    expect(lines(d)).toEqual([
      `VX_WAIT_START: task=${ID} status=running poll=5s max_wait=7200s log=-`,
      `VX_WAIT_STATUS: task=${ID} status=blocked`,
      "VX_WAIT_QUESTION: Postgres or SQLite?",
      `VX_WAIT_TERMINAL: task=${ID} status=blocked`,
    ]);
  });

  test("interrupted: the last [vexillum] note the output ends with", async () => {
    await createTask(paths, task());
    const gone = "[vexillum] this soldier's herdr agent disappeared (pane closed, or herdr restarted) - marked interrupted. Any work it already committed is still in its camp.";
    const output = `step one\n\n[vexillum] an older note\n\n${gone}\n`;
    const d = deps(scriptedClock([setStatus({ status: "interrupted", output })]));
    expect(await waitForTask(d, options({ paneTailLines: 2 }))).toBe(2);
    expect(lines(d).slice(1)).toEqual([
      `VX_WAIT_STATUS: task=${ID} status=interrupted`,
      `VX_WAIT_NOTE: ${gone}`,
      `VX_WAIT_PANE_TAIL: task=${ID} lines=2 source=recorded`,
      "",
      gone,
      `VX_WAIT_TERMINAL: task=${ID} status=interrupted`,
    ]);
  });

  test("a note followed by more transcript is not an ending note", async () => {
    await createTask(paths, task({ status: "done", output: "[vexillum] old news\n\nmore work happened" }));
    const d = deps(scriptedClock());
    expect(await waitForTask(d, options({ paneTailLines: 0 }))).toBe(0);
    expect(d.text().stdout).not.toContain("VX_WAIT_NOTE");
  });

  test("max wait: the tail, then the timeout line with the elapsed seconds, exit 124", async () => {
    await createTask(paths, task({ output: "still thinking" }));
    const clock = scriptedClock();
    const d = deps(clock);
    expect(await waitForTask(d, options({ pollMs: 5000, maxWaitMs: 12_000 }))).toBe(124);
    expect(clock.sleeps).toEqual([5000, 5000, 2000]);
    expect(lines(d)).toEqual([
      `VX_WAIT_START: task=${ID} status=running poll=5s max_wait=12s log=-`,
      `VX_WAIT_PANE_TAIL: task=${ID} lines=1 source=recorded`,
      "still thinking",
      `VX_WAIT_TIMEOUT: 12s max_wait=12s task=${ID}`,
    ]);
  });

  test.each([
    ["back an hour", -3_600_000],
    ["forward a day", 86_400_000],
  ])("max wait is measured on the monotonic clock: the wall clock stepping %s changes nothing (TIME-02)", async (_, ms) => {
    await createTask(paths, task({ output: "still thinking" }));
    // The first poll's sleep ends with the wall clock stepped.
    const clock: ReturnType<typeof scriptedClock> = scriptedClock([() => clock.step(ms)]);
    const d = deps(clock);
    expect(await waitForTask(d, options({ pollMs: 5000, maxWaitMs: 12_000 }))).toBe(124);
    expect(clock.sleeps).toEqual([5000, 5000, 2000]);
    expect(lines(d).at(-1)).toBe(`VX_WAIT_TIMEOUT: 12s max_wait=12s task=${ID}`);
  });

  test("already finished at start: reported at once, no sentinel started; a done scout names its report", async () => {
    await createTask(paths, task({ kind: "scout", status: "done", tmux_target: "vx-scout", backend: "tmux" }));
    const clock = scriptedClock();
    const d = deps(clock);
    expect(await waitForTask(d, options({ paneTailLines: 0 }))).toBe(0);
    expect(clock.sleeps).toEqual([]);
    expect(lines(d)).toEqual([
      `VX_WAIT_START: task=${ID} status=done poll=5s max_wait=7200s log=-`,
      `VX_WAIT_REPORT: ${join(paths.reportsDir, `vx-scout-${ID}.md`)}`,
      `VX_WAIT_DONE: task=${ID} status=done`,
    ]);
    expect(d.text().stderr).toBe("");
  });

  test("shipped counts as done; failed as terminal", async () => {
    await createTask(paths, task({ status: "shipped" }));
    const a = deps(scriptedClock());
    expect(await waitForTask(a, options({ paneTailLines: 0 }))).toBe(0);
    expect(lines(a).at(-1)).toBe(`VX_WAIT_DONE: task=${ID} status=shipped`);
    await updateTask(paths, ID, (t) => ({ ...t, status: "failed" }));
    const b = deps(scriptedClock());
    expect(await waitForTask(b, options({ paneTailLines: 0 }))).toBe(2);
    expect(lines(b).at(-1)).toBe(`VX_WAIT_TERMINAL: task=${ID} status=failed`);
  });
});

describe("log file and errors (WAIT-03, WAIT-05)", () => {
  test("every line is appended to the log file, which then equals stdout", async () => {
    await createTask(paths, task({ output: "a\nb" }));
    const log = join(box.home, "wait.log");
    writeFileSync(log, "earlier run\n");
    const d = deps(scriptedClock([setStatus({ status: "done" })]));
    expect(await waitForTask(d, options({ logFile: log }))).toBe(0);
    expect(lines(d)[0]).toBe(`VX_WAIT_START: task=${ID} status=running poll=5s max_wait=7200s log=${log}`);
    expect(readFileSync(log, "utf8")).toBe(`earlier run\n${d.text().stdout}`);
  });

  test("a relative log path is resolved against the working directory", async () => {
    await createTask(paths, task({ status: "done" }));
    const d = deps(scriptedClock());
    expect(await main(["wait", ID, "--log-file", "w.log", "--pane-tail-lines", "0"], d)).toBe(0);
    expect(readFileSync(join(box.project, "w.log"), "utf8")).toBe(d.text().stdout);
    expect(d.text().stdout).toContain(`log=${join(box.project, "w.log")}`);
  });

  test("a log file that cannot be opened: exit 1 with the reason", async () => {
    await createTask(paths, task());
    const bad = join(box.home, "no-such-dir", "w.log");
    const d = deps(scriptedClock());
    expect(await main(["wait", ID, "--log-file", bad], d)).toBe(1);
    expect(d.text()).toEqual({ stdout: "", stderr: `vx: cannot open log file ${bad}: ENOENT: no such file or directory\n` });
  });

  test("no such task: exit 1", async () => {
    const d = deps(scriptedClock());
    expect(await main(["wait", ID], d)).toBe(1);
    expect(d.text()).toEqual({ stdout: "", stderr: `vx: no task ${ID} in this project - 'vx status' lists its tasks\n` });
  });

  test("a task file removed while waiting: exit 1", async () => {
    await createTask(paths, task());
    const d = deps(scriptedClock([() => rmSync(taskPath(paths, ID))]));
    expect(await main(["wait", ID], d)).toBe(1);
    expect(d.text().stderr).toEndWith(`vx: no task ${ID} in this project - 'vx status' lists its tasks\n`);
  });
});

describe("pane tail", () => {
  let fake: FakeHerdrEnv;
  let pane: string;
  const herdrDeps = (clock: Clock) => deps(clock, { ...fake });

  beforeEach(() => {
    fake = installFakeHerdr(box.bin);
    pane = createWorkspace(fake, { cwd: box.project }).pane_id;
    addAgent(fake, pane, { name: "vx-fix-login", status: "idle" });
    setPaneText(fake, "vx-fix-login", "one\ntwo\nexport OPENAI_API_KEY=sk-abc\nsee https://bob:hunter2@git.example.com/r.git\n\n");
  });

  const herdrTask = (over: Partial<Task> = {}) =>
    task({ status: "done", backend: "herdr", herdr_pane_id: pane, herdr_agent_name: "vx-fix-login", harness: "claude", output: "recorded line", ...over });

  test("live: the last n lines of the agent's pane, redacted", async () => {
    await createTask(paths, herdrTask());
    const d = herdrDeps(scriptedClock());
    expect(await waitForTask(d, options({ paneTailLines: 3 }))).toBe(0);
    expect(lines(d).slice(1)).toEqual([
      `VX_WAIT_PANE_TAIL: task=${ID} lines=3 source=live`,
      "two",
      "[redacted sensitive line]",
      "see https://[redacted-secret]@git.example.com/r.git",
      `VX_WAIT_DONE: task=${ID} status=done`,
    ]);
    expect(callsOf(fake, "agent", "read").map((c) => c.argv[2])).toEqual(["vx-fix-login"]);
  });

  test("live by pane when the task has no agent name", async () => {
    await createTask(paths, herdrTask({ herdr_agent_name: undefined }));
    const d = herdrDeps(scriptedClock());
    expect(await waitForTask(d, options({ paneTailLines: 1 }))).toBe(0);
    expect(lines(d)[1]).toBe(`VX_WAIT_PANE_TAIL: task=${ID} lines=1 source=live`);
    expect(callsOf(fake, "agent", "read").map((c) => c.argv[2])).toEqual([pane]);
  });

  test("recorded: the pane cannot be read, so the task's output, redacted", async () => {
    removeAgent(fake, "vx-fix-login");
    await createTask(paths, herdrTask({ status: "interrupted", output: "x\npassword: hunter2\ndone?" }));
    const d = herdrDeps(scriptedClock());
    expect(await waitForTask(d, options())).toBe(2);
    expect(lines(d).slice(1)).toEqual([`VX_WAIT_PANE_TAIL: task=${ID} lines=3 source=recorded`, "x", "[redacted sensitive line]", "done?", `VX_WAIT_TERMINAL: task=${ID} status=interrupted`]);
  });

  test("disabled with 0: no tail line and no pane read", async () => {
    await createTask(paths, herdrTask());
    const d = herdrDeps(scriptedClock());
    expect(await waitForTask(d, options({ paneTailLines: 0 }))).toBe(0);
    expect(lines(d)).toEqual([`VX_WAIT_START: task=${ID} status=done poll=5s max_wait=7200s log=-`, `VX_WAIT_DONE: task=${ID} status=done`]);
    expect(callsOf(fake, "agent", "read")).toEqual([]);
    expect(existsSync(join(box.home, ".vexillum", "sentinel.log"))).toBe(false);
  });

  test("never sends keys or prompts, even while waiting on a live soldier", async () => {
    await createTask(paths, herdrTask({ status: "running" }));
    const d = herdrDeps(scriptedClock());
    expect(await waitForTask(d, options({ maxWaitMs: 10_000 }))).toBe(124);
    const verbs = callsOf(fake).map((c) => c.argv.slice(0, 2).join(" "));
    expect(verbs).toEqual(["agent read"]);
  });
});

describe("redactedTail", () => {
  test("redacts the whole text before cutting, so a key block cut by the tail stays hidden", () => {
    const text = "intro\n-----BEGIN RSA PRIVATE KEY-----\nMIIabc\nMIIdef\n-----END RSA PRIVATE KEY-----\nafter\n";
    expect(redactedTail(text, 2)).toEqual(["[redacted private key block]", "after"]);
    expect(redactedTail("a\nb", 0)).toEqual([]);
    expect(redactedTail("  \n\n", 5)).toEqual([]);
  });
});
