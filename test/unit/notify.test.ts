// WAK-14 the general's ping: which written wakes are pinged, the argv and stdin, failures logged once
// per project and kind, the kill timer on a fake clock; and the pass collecting what it wrote.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../../src/errors";
import { procEnviron } from "../../src/procs";
import { runPass } from "../../src/sentinel/pass";
import type { ForumWake, SoldierWake, TaskStatus } from "../../src/state/schemas";
import { COUNTS, DURATIONS, scaled } from "../../src/time";
import { type After, type NotifierChild, type SpawnNotifier, type WrittenWake, createNotifier, notifyFromFlag, parseNotify, pingFor, realSpawnNotifier } from "../../src/wakes/notify";
import { reasonText } from "../../src/wakes/reason";
import { fakeClock } from "../deps";
import { addAgent, createWorkspace, setPaneText } from "../fakes/herdr-control";
import { alive, waitFor } from "../helpers";
import { taskId, world } from "../sentinel-kit";

/** Lets the callbacks of settled promises run. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

/** A process's raw /proc cmdline, undefined when unreadable. */
function inspectProcessSync(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return undefined;
  }
}

const wake = (over: Partial<SoldierWake> = {}): SoldierWake => ({
  task_id: "0123456789abcdef",
  kind: "mission",
  old_status: "running",
  new_status: "done",
  detected_at: "2026-11-30T12:00:00.000Z",
  ...over,
});
const written = (over: Partial<SoldierWake> = {}, home = "/p/a"): WrittenWake => ({ kind: "soldier", home, project: home, wake: wake(over) });

type Run = { argv: string[]; stdin: string; env: Record<string, string>; cwd: string; killed: number; end(r: { code: number | null; signal?: string; stderr?: string }): void };

/** A spawn that records each run; the test ends them. `fail` makes it throw like Bun.spawn. */
function fakeSpawn(fail?: { code: string; message: string }) {
  const runs: Run[] = [];
  const spawn: SpawnNotifier = (argv, opts) => {
    if (fail) throw Object.assign(new Error(fail.message), { code: fail.code });
    let end!: Run["end"];
    const exited = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) => {
      end = (r) => resolve({ code: r.code, signal: r.signal ?? null, stderr: r.stderr ?? "" });
    });
    const run: Run = { argv, stdin: opts.stdin, env: opts.env, cwd: opts.cwd, killed: 0, end };
    runs.push(run);
    const child: NotifierChild = {
      exited,
      kill() {
        run.killed++;
        end({ code: null, signal: "SIGKILL" });
      },
    };
    return child;
  };
  return { runs, spawn };
}

/** Timers on a fake clock: `advance` fires those that are due, in order. */
function fakeTimers() {
  const clock = fakeClock();
  let timers: { due: number; fn: () => void; live: boolean }[] = [];
  const after: After = (ms, fn) => {
    const t = { due: clock.now() + ms, fn, live: true };
    timers.push(t);
    return () => {
      t.live = false;
    };
  };
  return {
    after,
    pending: () => timers.filter((t) => t.live).length,
    advance(ms: number) {
      clock.advance(ms);
      const due = timers.filter((t) => t.live && t.due <= clock.now()).sort((a, b) => a.due - b.due);
      timers = timers.filter((t) => !due.includes(t));
      for (const t of due) {
        t.live = false;
        t.fn();
      }
    },
  };
}

function notifier(opts: { setting?: (dir: string) => unknown; fail?: { code: string; message: string }; env?: Record<string, string> } = {}) {
  const sp = fakeSpawn(opts.fail);
  const timers = fakeTimers();
  const logs: string[] = [];
  const reads: string[] = [];
  const n = createNotifier({
    spawn: sp.spawn,
    after: timers.after,
    log: (m) => logs.push(m),
    env: opts.env ?? { PATH: "/usr/bin:/bin", VX_TASK_ID: "stale" },
    limitMs: 30_000,
    setting: (dir) => {
      reads.push(dir);
      return (opts.setting ?? (() => ["ping", "--topic", "my vx"]))(dir);
    },
  });
  return { n, runs: sp.runs, timers, logs, reads };
}

describe("which wakes are pinged", () => {
  test.each([
    ["done", true],
    ["blocked", true],
    ["interrupted", true],
    ["unconfirmed", true],
    ["failed", false],
    ["running", false],
    ["pending", false],
  ] as [TaskStatus, boolean][])("%s: %p", (status, pinged) => {
    expect(pingFor(written({ new_status: status })) !== undefined).toBe(pinged);
  });

  test("stdin is the wake's own reason text; the three variables name project, task and status", () => {
    const w: WrittenWake = { kind: "soldier", home: "/p/commander", project: "/p/soldier", wake: wake({ new_status: "interrupted", origin: "/p/soldier", note: "[vexillum] gone" }) };
    expect(pingFor(w)).toEqual({
      stdin: `${reasonText([w.wake as SoldierWake], [])}\n`,
      env: { VX_PROJECT: "/p/soldier", VX_TASK_ID: "0123456789abcdef", VX_NEW_STATUS: "interrupted" },
    });
    expect(pingFor(w)?.stdin).toContain("- mission 0123456789abcdef: running -> interrupted\n  project: /p/soldier\n  note: [vexillum] gone\n");
  });

  test("a forum wake is pinged with its forum section", () => {
    const f: ForumWake = { session: "s1", file: "notes.md", count: 2, ended: false, detected_at: "2026-11-30T12:00:00.000Z" };
    const ping = pingFor({ kind: "forum", home: "/p/a", project: "/p/a", wake: f });
    expect(ping?.stdin).toContain("forum session notes.md: 2 new messages (ended: false). Run vx forum inbox.\n");
    expect(ping?.env).toEqual({ VX_PROJECT: "/p/a", VX_TASK_ID: "", VX_NEW_STATUS: "forum" });
  });
});

describe("the notify setting and --notify", () => {
  test("config values: absent is none; anything but a non-empty string array naming a program is invalid", () => {
    expect(parseNotify(undefined)).toBeUndefined();
    expect(parseNotify(null)).toBeUndefined();
    expect(parseNotify(["ntfy", "publish", "my vx"])).toEqual({ argv: ["ntfy", "publish", "my vx"] });
    for (const bad of ["ntfy publish", [], ["ntfy", 1], [" "], ["ping", "a\0b"], { argv: ["x"] }]) {
      expect(parseNotify(bad)).toHaveProperty("error");
    }
  });

  test("--notify: words split on whitespace or a JSON argv; never a shell", () => {
    expect(notifyFromFlag("notify-send  vx")).toEqual(["notify-send", "vx"]);
    expect(notifyFromFlag('["ntfy","publish","my vx"]')).toEqual(["ntfy", "publish", "my vx"]);
    expect(notifyFromFlag("sh -c 'echo $HOME'")).toEqual(["sh", "-c", "'echo", "$HOME'"]);
  });

  test.each([
    ["", "--notify is empty - give a program and its arguments"],
    ["   ", "--notify is empty - "],
    ['["ntfy",', `--notify '["ntfy",' is not a JSON array of strings - `],
    ['["ntfy",1]', `--notify '["ntfy",1]' is not an array of strings naming a program and its arguments - `],
    ["[]", "--notify '[]' is not an array of strings"],
    ['[""]', `--notify '[""]' names no program (its first element is empty) - `],
  ])("--notify %p is a usage error", (value, message) => {
    let err: unknown;
    try {
      notifyFromFlag(value);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exit).toBe(64);
    expect((err as Error).message).toStartWith(message);
    expect((err as Error).message).not.toContain("\n");
  });
});

describe("the notifier", () => {
  test('nothing runs and nothing is logged without "notify"', () => {
    const t = notifier({ setting: () => undefined });
    t.n.notify([written(), written({ new_status: "blocked", task_id: "1111111111111111" })]);
    expect(t.runs).toEqual([]);
    expect(t.logs).toEqual([]);
    expect(t.timers.pending()).toBe(0);
  });

  test("one run per pinged wake, argv exactly as configured, env added, cwd the project; config read once per batch", async () => {
    const t = notifier({ setting: (dir) => (dir === "/p/a" ? ["ping", "--topic", "my vx"] : ["other"]) });
    t.n.notify([
      written({ new_status: "done" }),
      written({ new_status: "failed", task_id: "2222222222222222" }),
      written({ new_status: "unconfirmed", task_id: "3333333333333333" }, "/p/b"),
      written({ new_status: "blocked", task_id: "4444444444444444" }),
    ]);
    // Started, not finished: notify returned with every run still going.
    expect(t.runs.map((r) => [r.argv, r.env.VX_TASK_ID, r.env.VX_NEW_STATUS])).toEqual([
      [["ping", "--topic", "my vx"], "0123456789abcdef", "done"],
      [["other"], "3333333333333333", "unconfirmed"],
      [["ping", "--topic", "my vx"], "4444444444444444", "blocked"],
    ]);
    expect(t.reads).toEqual(["/p/a", "/p/b"]);
    expect(t.runs[0].env).toMatchObject({ PATH: "/usr/bin:/bin", VX_PROJECT: "/p/a" });
    expect(t.runs[0].stdin).toBe(`${reasonText([wake()], [])}\n`);
    expect(t.runs[0].cwd).toBe("/"); // /p/a does not exist here
    for (const r of t.runs) r.end({ code: 0 });
    await t.n.settled();
    expect(t.logs).toEqual([]);
    expect(t.timers.pending()).toBe(0);
  });

  test("a failing notifier is logged once per project, with its last stderr line redacted", async () => {
    const t = notifier();
    for (let i = 0; i < 3; i++) {
      t.n.notify([written(), written({}, "/p/b")]);
      for (const r of t.runs.splice(0)) r.end({ code: 3, stderr: "warming up\nauth failed: token ghp_0123456789abcdefghijABCDEFGHIJ012345\n" });
      await t.n.settled();
    }
    expect(t.logs).toEqual([
      expect.stringMatching(/^sentinel: notify \(\/p\/a\): ping exited 3: auth failed: token (?!ghp_0123)\S+ \(logged once\)$/),
      expect.stringMatching(/^sentinel: notify \(\/p\/b\): ping exited 3: /),
    ]);
  });

  test("a missing program is logged once per project and nothing else happens", () => {
    const t = notifier({ fail: { code: "ENOENT", message: 'Executable not found in $PATH: "ping"' } });
    t.n.notify([written(), written({ task_id: "1111111111111111" }), written({}, "/p/b")]);
    t.n.notify([written()]);
    expect(t.logs).toEqual([
      `sentinel: notify (/p/a): ping not found, so the general is not pinged - install it or change "notify" in .vexillum/config.json (logged once)`,
      `sentinel: notify (/p/b): ping not found, so the general is not pinged - install it or change "notify" in .vexillum/config.json (logged once)`,
    ]);
    expect(t.timers.pending()).toBe(0);
  });

  test("an invalid setting or an unreadable config is logged once and runs nothing", () => {
    const t = notifier({
      setting: (dir) => {
        if (dir === "/p/b") throw new Error("/p/b/.vexillum/config.json: invalid JSON");
        return "ping --topic x";
      },
    });
    t.n.notify([written(), written({}, "/p/b")]);
    t.n.notify([written(), written({}, "/p/b")]);
    expect(t.runs).toEqual([]);
    expect(t.logs).toEqual([
      `sentinel: notify (/p/a): "notify" is not an array of strings naming a program and its arguments, e.g. ["ntfy","publish","my-vx"] in .vexillum/config.json - nothing is run until it is fixed (logged once)`,
      "sentinel: notify (/p/b): cannot read its config.json, so no notifier runs: /p/b/.vexillum/config.json: invalid JSON (logged once)",
    ]);
  });

  test("a hanging notifier is killed when the limit passes on the clock, not before; logged once", async () => {
    const t = notifier();
    t.n.notify([written()]);
    t.timers.advance(29_999);
    expect(t.runs[0].killed).toBe(0);
    t.timers.advance(1);
    expect(t.runs[0].killed).toBe(1);
    await t.n.settled();
    t.n.notify([written()]);
    t.timers.advance(30_000);
    await t.n.settled();
    expect(t.runs.map((r) => r.killed)).toEqual([1, 1]);
    expect(t.logs).toEqual(["sentinel: notify (/p/a): ping was still running after 30s and was killed (logged once)"]);
  });

  test("one that ends in time is never killed; close() kills those still running", async () => {
    const t = notifier();
    t.n.notify([written(), written({ task_id: "1111111111111111" })]);
    t.runs[0].end({ code: 0 });
    await Promise.resolve();
    t.timers.advance(10_000);
    t.n.close();
    await t.n.settled();
    expect(t.runs.map((r) => r.killed)).toEqual([0, 1]);
    t.timers.advance(60_000);
    expect(t.runs.map((r) => r.killed)).toEqual([0, 1]);
    expect(t.logs).toEqual([]); // cut short by the stop, not a failure
  });

  test("a real notifier writing 64 MiB to stderr: only a bounded tail is kept, its last line logged", async () => {
    const line = "ntfy: retrying publish to https://ntfy.example/my-vx after a connection reset";
    // awk's own stdout sent to stderr: printing to "/dev/stderr" would write each line unbuffered, 800,000 system calls.
    const script = `awk 'BEGIN { while (n < 67108864) { print "${line}"; n += ${line.length + 1} } }' >&2; echo 'ntfy: 429 too many requests' >&2; exit 1`;
    const child = realSpawnNotifier(["sh", "-c", script], { stdin: "", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, cwd: "/" });
    const r = await child.exited;
    expect(r.code).toBe(1);
    expect(r.stderr.length).toBeLessThan(8192);
    expect(r.stderr.split("\n").at(-1)).toBe("ntfy: 429 too many requests");
  }, 60_000);

  test("real notifiers: one that exits leaving a setsid'd child, and one killed at the limit with one: neither child survives", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vx-notify-left-"));
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
    const leave = (name: string) => `setsid sleep 1000 >/dev/null 2>&1 </dev/null & echo $! > "${dir}/${name}"`;
    const pidOf = (name: string) => Number(readFileSync(join(dir, name), "utf8").trim());
    try {
      const quick = realSpawnNotifier(["sh", "-c", `${leave("quick")}; exit 0`], { stdin: "", env, cwd: "/" });
      expect((await quick.exited).code).toBe(0);
      const hung = realSpawnNotifier(["sh", "-c", `${leave("hung")}; exec sleep 1002`], { stdin: "", env, cwd: "/" });
      await waitFor(() => existsSync(join(dir, "hung")), 10_000, "the hung notifier's child");
      hung.kill();
      expect((await hung.exited).signal).toBe("SIGKILL");
      for (const name of ["quick", "hung"]) await waitFor(() => !alive(pidOf(name)), 10_000, `the ${name} notifier's child gone`);
    } finally {
      for (const name of ["quick", "hung"]) {
        const pid = existsSync(join(dir, name)) ? pidOf(name) : 0;
        const argv = pid > 0 ? (inspectProcessSync(pid) ?? "") : "";
        if (pid > 0 && alive(pid) && argv === "sleep\u00001000\u0000" && procEnviron(pid)?.PATH === env.PATH) process.kill(pid, "SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test("at most COUNTS.notifyConcurrent run at once; the next waiting starts as one ends; past the waiting room, dropped and logged once", async () => {
    const t = notifier();
    const many = COUNTS.notifyConcurrent + COUNTS.notifyWaiting + 3;
    t.n.notify(Array.from({ length: many }, (_, i) => written({ task_id: i.toString(16).padStart(16, "0") })));
    expect(t.runs).toHaveLength(COUNTS.notifyConcurrent);
    expect(t.logs).toEqual([`sentinel: notify (/p/a): 3 ping(s) dropped: ${COUNTS.notifyConcurrent} notifiers running and ${COUNTS.notifyWaiting} waiting (logged once)`]);
    t.runs[0].end({ code: 0 });
    await flush();
    expect(t.runs).toHaveLength(COUNTS.notifyConcurrent + 1);
    // Each in the order its wake came: the first waiting is the fifth wake.
    expect(t.runs[COUNTS.notifyConcurrent].env.VX_TASK_ID).toBe(COUNTS.notifyConcurrent.toString(16).padStart(16, "0"));
    for (let i = 0; i < many && t.runs.length < COUNTS.notifyConcurrent + COUNTS.notifyWaiting; i++) {
      for (const r of t.runs) r.end({ code: 0 });
      await flush();
    }
    for (const r of t.runs) r.end({ code: 0 });
    await t.n.settled();
    expect(t.runs).toHaveLength(COUNTS.notifyConcurrent + COUNTS.notifyWaiting);
  });

  test("close() drops the waiting pings and kills the running ones", async () => {
    const t = notifier();
    t.n.notify(Array.from({ length: COUNTS.notifyConcurrent + 2 }, (_, i) => written({ task_id: i.toString(16).padStart(16, "0") })));
    t.n.close();
    await t.n.settled();
    expect(t.runs).toHaveLength(COUNTS.notifyConcurrent);
    expect(t.runs.every((r) => r.killed === 1)).toBe(true);
  });

  test("the limit is 30 s nominal, scaled by VX_TIME_SCALE", () => {
    expect(DURATIONS.notifyLimit).toBe(30_000);
    expect(scaled("notifyLimit", { VX_TIME_SCALE: "0.02" })).toBe(600);
  });
});

describe("the pass collects the wakes it wrote, for after its saves", () => {
  test("a routed wake's config project is the commander's; VX_PROJECT the soldier's; unchanged marks are not collected", async () => {
    using w = world();
    const { dir, paths } = w.addProject();
    const other = w.addProject("commander-home");
    const ws = createWorkspace(w.herdr);
    addAgent(w.herdr, ws.pane_id, { name: "vx-q", kind: "claude", status: "blocked" });
    const dialog = ["Ship now?", "", "❯ 1. Yes", "  2. No", "", "Enter to select · ↑/↓ to navigate · Esc to cancel"];
    setPaneText(w.herdr, "vx-q", dialog.join("\n"), "visible");
    const routed = taskId();
    w.writeTask(paths, { id: routed, herdr_agent_name: "vx-q", commander_project: other.dir });
    const lost = taskId();
    w.writeTask(paths, { id: lost, herdr_agent_name: "vx-gone" });
    const first = await runPass(w.ctx);
    expect(first.written).toEqual([{ kind: "soldier", home: other.dir, project: dir, wake: expect.objectContaining({ task_id: routed, new_status: "blocked", origin: dir }) }]);
    w.clock.advance(10_000);
    const second = await runPass(w.ctx);
    expect(second.written).toEqual([{ kind: "soldier", home: dir, project: dir, wake: expect.objectContaining({ task_id: lost, new_status: "interrupted" }) }]);
    expect(second.written[0].wake).not.toHaveProperty("origin");
  });
});
