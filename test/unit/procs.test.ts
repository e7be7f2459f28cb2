import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Exec, ExecOptions, ExecResult } from "../../src/exec";
import { realExec } from "../../src/exec";
import { inspectProcess, isAlive, isAwaitArgv, isAwaitProcess, isLiveVx, isVxArgv, isVxExecutable, processStateRoot, processesWithEnv, stillHasEnv } from "../../src/procs";
import { execed } from "../exec-wait";
import { waitFor } from "../helpers";

describe("command lines", () => {
  test.each([
    ["/usr/local/bin/vx sentinel await", true, true],
    ["vx sentinel await", true, true],
    ["vx sentinel await --extra", true, true],
    ["/home/u/.local/bin/vx sentinel", true, false],
    ["vx sentinel awaiting", true, false],
    ["vx status sentinel await", true, false],
    ["/tmp/vx-old sentinel await", false, false],
    ["bun /x/src/cli.ts sentinel await", true, true],
    ["/usr/bin/bun run /x/src/cli.ts sentinel await", true, true],
    ["bun src/cli.ts sentinel", true, false],
    ["bun /x/src/other.ts sentinel await", false, false],
    ["bun test", false, false],
    ["vim vx", false, false],
    ["vim /usr/local/bin/vx sentinel await", false, false],
    ["[vx] <defunct>", false, false],
    ["", false, false],
  ])("%p: vx=%p await=%p", (command, vx, isAwait) => {
    const argv = command.split(" ").filter((w) => w !== "");
    expect(isVxArgv(argv)).toBe(vx);
    expect(isAwaitArgv(argv)).toBe(isAwait);
  });
});

function fakeExec(result: ExecResult, calls: string[][] = [], opts: (ExecOptions | undefined)[] = []): Exec {
  return {
    async run(argv, o) {
      calls.push(argv);
      opts.push(o);
      return result;
    },
  };
}

// The `ps` path (every platform but Linux) is named by any other platform.
const PS = "darwin";

describe("inspectProcess through ps", () => {
  test("asks ps for one pid as an argv array, full width and without COLUMNS, and parses ppid and command", async () => {
    const calls: string[][] = [];
    const opts: (ExecOptions | undefined)[] = [];
    const exec = fakeExec({ code: 0, stdout: "  4321 /usr/local/bin/vx sentinel await\n", stderr: "" }, calls, opts);
    const before = process.env.COLUMNS;
    process.env.COLUMNS = "80";
    try {
      expect(await inspectProcess(77, exec, PS)).toEqual({
        ppid: 4321,
        command: "/usr/local/bin/vx sentinel await",
        argv: ["/usr/local/bin/vx", "sentinel", "await"],
      });
    } finally {
      if (before === undefined) delete process.env.COLUMNS;
      else process.env.COLUMNS = before;
    }
    expect(calls).toEqual([["ps", "-ww", "-o", "ppid=,command=", "-p", "77"]]);
    expect(opts[0]?.env).toBeDefined();
    expect(opts[0]?.env?.COLUMNS).toBeUndefined();
    expect(opts[0]?.env?.PATH).toBe(process.env.PATH);
  });

  test("a gone process, a ps failure or a nonsense pid is undefined", async () => {
    const calls: string[][] = [];
    expect(await inspectProcess(77, fakeExec({ code: 1, stdout: "", stderr: "" }), PS)).toBeUndefined();
    expect(await inspectProcess(77, fakeExec({ code: 127, stdout: "", stderr: "not found" }), PS)).toBeUndefined();
    expect(await inspectProcess(77, fakeExec({ code: 0, stdout: "garbage\n", stderr: "" }), PS)).toBeUndefined();
    for (const pid of [0, -1, 1.5, Number.NaN]) {
      expect(await inspectProcess(pid, fakeExec({ code: 0, stdout: "1 vx", stderr: "" }, calls), PS)).toBeUndefined();
    }
    expect(calls).toEqual([]);
  });
});

/**
 * A real process with a very long argv, read while the caller's terminal is 80 columns wide:
 * procps cuts `ps` lines to COLUMNS, and nothing vx parses may depend on that.
 */
describe("a long command line under COLUMNS=80", () => {
  let base: string;
  let before: string | undefined;
  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "vx-procs-")));
    before = process.env.COLUMNS;
    process.env.COLUMNS = "80";
  });
  afterEach(() => {
    if (before === undefined) delete process.env.COLUMNS;
    else process.env.COLUMNS = before;
    rmSync(base, { recursive: true, force: true });
  });

  /** `sleep` started as `<deep dir>/vx sentinel await 60`: argv[0] alone is far over 80 columns. */
  async function longVx() {
    const deep = join(base, ...Array.from({ length: 8 }, (_, i) => `level-${i}-${"d".repeat(12)}`));
    mkdirSync(deep, { recursive: true });
    const vxPath = join(deep, "vx");
    const proc = Bun.spawn(["sleep", "60"], { argv0: vxPath });
    await execed(proc.pid, "sleep");
    return { proc, vxPath };
  }

  test.each([["linux"], [PS]])("inspectProcess (%s path) reads the whole argv", async (platform) => {
    if (platform === "linux" && process.platform !== "linux") return;
    const { proc, vxPath } = await longVx();
    try {
      expect(vxPath.length).toBeGreaterThan(120);
      const info = await inspectProcess(proc.pid, realExec, platform);
      expect(info?.ppid).toBe(process.pid);
      expect(info?.command).toBe(`${vxPath} 60`);
      expect(await isLiveVx(proc.pid, realExec, platform)).toBe(true);
    } finally {
      proc.kill();
      await proc.exited;
    }
  });

  test.skipIf(process.platform !== "linux")("a live await whose vx path is long is still an await", async () => {
    // A program named vx deep in a temp dir that stays alive with exactly `sentinel await` as its
    // arguments: a copy of bash, reading its script `sentinel` from the working directory, which
    // blocks on a FIFO it holds open both ways (no child to leave behind, no end of input).
    const deep = join(base, ...Array.from({ length: 8 }, (_, i) => `level-${i}-${"d".repeat(12)}`), "bin");
    mkdirSync(deep, { recursive: true });
    const vxPath = join(deep, "vx");
    copyFileSync(Bun.which("bash") as string, vxPath);
    chmodSync(vxPath, 0o755);
    expect(Bun.spawnSync(["mkfifo", join(deep, "fifo")]).exitCode).toBe(0);
    writeFileSync(join(deep, "sentinel"), "read -r _ <> fifo\n");
    const proc = Bun.spawn([vxPath, "sentinel", "await"], { cwd: deep, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    try {
      await execed(proc.pid, "vx");
      const info = await inspectProcess(proc.pid, realExec);
      expect(info?.argv).toEqual([vxPath, "sentinel", "await"]);
      expect(info?.exe).toBe(vxPath);
      expect(info && isAwaitProcess(info)).toBe(true);
    } finally {
      proc.kill();
      await proc.exited;
    }
  });
});

describe("the comm field of /proc/<pid>/stat", () => {
  test.skipIf(process.platform !== "linux")("a program named with spaces and parens still reads its parent", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "vx-comm-")));
    const odd = join(dir, "a) (b c");
    symlinkSync(Bun.which("sleep") as string, odd);
    // comm is the executable's name as exec'd through the link: `a) (b c`.
    const proc = Bun.spawn([odd, "60"]);
    try {
      // The kernel renames the process before it sets up the new argv: both are waited for.
      const execd = async () => (await Bun.file(`/proc/${proc.pid}/comm`).text()).trim() === "a) (b c" && (await Bun.file(`/proc/${proc.pid}/cmdline`).text()) !== "";
      await waitFor(execd, 10_000, "the odd name to exec");
      const info = await inspectProcess(proc.pid, realExec);
      expect(info?.ppid).toBe(process.pid);
      expect(info?.argv).toEqual([odd, "60"]);
    } finally {
      proc.kill();
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("isLiveVx against real processes", () => {
  test("this test runner is alive but not vx", async () => {
    expect(await isLiveVx(process.pid, realExec)).toBe(false);
  });

  test("a process whose command is vx is live vx; once it exits (pid gone) it is not", async () => {
    const proc = Bun.spawn(["sleep", "60"], { argv0: "/opt/bin/vx" });
    try {
      // Until the child has exec'd, its argv is still the test runner's.
      await execed(proc.pid, "sleep");
      expect(await isLiveVx(proc.pid, realExec)).toBe(true);
      expect((await inspectProcess(proc.pid, realExec))?.ppid).toBe(process.pid);
    } finally {
      proc.kill();
      await proc.exited;
    }
    expect(await isLiveVx(proc.pid, realExec)).toBe(false);
  });
});

describe("which processes are awaits", () => {
  test.each([
    ["/usr/local/bin/vx", "/usr/local/bin/vx", true],
    ["/opt/homebrew/Cellar/vx/0.1.0/bin/vx", "/usr/local/bin/vx", true],
    ["/usr/bin/bun", "/usr/bin/bun", true],
    ["/usr/bin/bun", "/usr/local/bin/vx", false],
    ["/usr/bin/sleep", "/usr/local/bin/vx", false],
    ["/usr/bin/bash", "/usr/local/bin/vx", false],
    ["/tmp/vx-old", "/usr/local/bin/vx", false],
  ])("executable %s for a vx running from %s: %p", (exe, self, want) => {
    expect(isVxExecutable(exe, self)).toBe(want);
  });

  test("on Linux the argv and the executable must both be vx's; elsewhere the argv", () => {
    const argv = ["/usr/local/bin/vx", "sentinel", "await"];
    const info = { ppid: 1, command: argv.join(" "), argv };
    expect(isAwaitProcess({ ...info, exe: "/usr/local/bin/vx" }, "linux")).toBe(true);
    expect(isAwaitProcess({ ...info, exe: "/usr/bin/sleep" }, "linux")).toBe(false);
    expect(isAwaitProcess(info, "linux")).toBe(false); // unreadable: not proven
    expect(isAwaitProcess(info, PS)).toBe(true);
    // A single argv[0] holding the words is not vx's argv (exec -a "vx sentinel await" sleep).
    const forged = ["vx sentinel await", "1000"];
    expect(isAwaitProcess({ ppid: 1, command: forged.join(" "), argv: forged, exe: "/usr/local/bin/vx" }, "linux")).toBe(false);
  });
});

describe("processStateRoot", () => {
  test.skipIf(process.platform !== "linux")("a live process's HOME, as vx computes the state root, symlinks resolved; none once it is gone", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-procroot-")));
    try {
      mkdirSync(join(base, "home", ".vexillum"), { recursive: true });
      symlinkSync(join(base, "home"), join(base, "link"));
      const viaLink = Bun.spawn(["sleep", "60"], { env: { HOME: join(base, "link") } });
      const noHome = Bun.spawn(["sleep", "60"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
      try {
        // Until the children have exec'd, /proc/<pid>/environ is still the test runner's.
        await Promise.all([execed(viaLink.pid, "sleep"), execed(noHome.pid, "sleep")]);
        expect(await processStateRoot(viaLink.pid, realExec)).toBe(join(base, "home", ".vexillum"));
        expect(await processStateRoot(noHome.pid, realExec)).toBeUndefined();
      } finally {
        viaLink.kill();
        noHome.kill();
        await Promise.all([viaLink.exited, noHome.exited]);
      }
      expect(await processStateRoot(viaLink.pid, realExec)).toBeUndefined();
      expect(await processStateRoot(0, realExec)).toBeUndefined();
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  test("without /proc: ps -E, one HOME word or nothing", async () => {
    const calls: string[][] = [];
    const ps = (stdout: string, code = 0) => fakeExec({ code, stdout, stderr: "" }, calls);
    expect(await processStateRoot(77, ps("vx sentinel await TERM=xterm HOME=/Users/u PATH=/bin\n"), "darwin")).toBe("/Users/u/.vexillum");
    expect(calls[0]).toEqual(["ps", "-E", "-ww", "-o", "command=", "-p", "77"]);
    // Another user's process shows no environment; a value containing " HOME=" makes two.
    expect(await processStateRoot(77, ps("vx sentinel await\n"), "darwin")).toBeUndefined();
    expect(await processStateRoot(77, ps("vx sentinel await HOME=/Users/them X=a HOME=/Users/u\n"), "darwin")).toBeUndefined();
    expect(await processStateRoot(77, ps("vx sentinel await HOME=relative\n"), "darwin")).toBeUndefined();
    expect(await processStateRoot(77, ps("", 1), "darwin")).toBeUndefined();
  });
});

describe("processesWithEnv (children.ts's marks)", () => {
  test.skipIf(process.platform !== "linux")("Linux: the live processes whose environment holds the pair exactly, read from /proc", async () => {
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
    const marked = Bun.spawn(["sleep", "60"], { env: { ...env, VX_TEST_MARK: "m1" } });
    const other = Bun.spawn(["sleep", "60"], { env: { ...env, VX_TEST_MARK: "m1x" } });
    try {
      await Promise.all([execed(marked.pid, "sleep"), execed(other.pid, "sleep")]);
      expect(await processesWithEnv("VX_TEST_MARK", "m1", realExec)).toEqual([marked.pid]);
      expect(stillHasEnv(marked.pid, "VX_TEST_MARK", "m1", realExec)).toBe(true);
      expect(stillHasEnv(other.pid, "VX_TEST_MARK", "m1", realExec)).toBe(false);
    } finally {
      marked.kill();
      other.kill();
      await Promise.all([marked.exited, other.exited]);
    }
    expect(await processesWithEnv("VX_TEST_MARK", "m1", realExec)).toEqual([]);
  });

  test("without /proc: one ps -E listing of every process, a word equal to the pair", async () => {
    const calls: string[][] = [];
    const listing = ["  11 sh -c x TERM=xterm VX_CHILD_MARK=ab12 HOME=/u", "  12 sleep 9 VX_CHILD_MARK=ab12x", `  ${process.pid} vx VX_CHILD_MARK=ab12`, "  13 other"].join("\n");
    expect(await processesWithEnv("VX_CHILD_MARK", "ab12", fakeExec({ code: 0, stdout: `${listing}\n`, stderr: "" }, calls), PS)).toEqual([11]);
    expect(calls[0]).toEqual(["ps", "-E", "-ww", "-ax", "-o", "pid=,command="]);
    expect(await processesWithEnv("VX_CHILD_MARK", "ab12", fakeExec({ code: 1, stdout: "", stderr: "" }), PS)).toEqual([]);
  });
});

describe("isAlive (read from /proc on Linux)", () => {
  test("a running process is alive; a zombie and an exited pid are not", async () => {
    // `sleep 0` becomes a zombie: its parent execs `sleep 30`, which never reaps it.
    const parent = Bun.spawn(["sh", "-c", "sleep 0 & exec sleep 30"], { stdout: "ignore", stderr: "ignore" });
    try {
      await execed(parent.pid, "sleep");
      expect(isAlive(parent.pid)).toBe(true);
      const zombie = await waitFor(
        () => {
          const kids = Bun.spawnSync(["ps", "-o", "pid=,stat=", "--ppid", String(parent.pid)], { stdout: "pipe" })
            .stdout.toString()
            .trim();
          const m = kids.match(/^(\d+)\s+Z/m);
          return m ? Number(m[1]) : undefined;
        },
        10_000,
        "a zombie child",
      );
      expect(isAlive(zombie)).toBe(false);
    } finally {
      parent.kill("SIGKILL");
    }
    await parent.exited;
    expect(isAlive(parent.pid)).toBe(false);
    expect(isAlive(process.pid)).toBe(true);
  });
});
