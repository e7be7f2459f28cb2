import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Exec, ExecResult } from "../../src/exec";
import { realExec } from "../../src/exec";
import { inspectProcess, isAwaitCommand, isLiveVx, isVxCommand, processStateRoot } from "../../src/procs";

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
    expect(isVxCommand(command)).toBe(vx);
    expect(isAwaitCommand(command)).toBe(isAwait);
  });
});

function fakeExec(result: ExecResult, calls: string[][] = []): Exec {
  return {
    async run(argv) {
      calls.push(argv);
      return result;
    },
  };
}

describe("inspectProcess", () => {
  test("asks ps for one pid as an argv array and parses ppid and command", async () => {
    const calls: string[][] = [];
    const exec = fakeExec({ code: 0, stdout: "  4321 /usr/local/bin/vx sentinel await\n", stderr: "" }, calls);
    expect(await inspectProcess(77, exec)).toEqual({ ppid: 4321, command: "/usr/local/bin/vx sentinel await" });
    expect(calls).toEqual([["ps", "-o", "ppid=,command=", "-p", "77"]]);
  });

  test("a gone process, a ps failure or a nonsense pid is undefined", async () => {
    const calls: string[][] = [];
    expect(await inspectProcess(77, fakeExec({ code: 1, stdout: "", stderr: "" }))).toBeUndefined();
    expect(await inspectProcess(77, fakeExec({ code: 127, stdout: "", stderr: "not found" }))).toBeUndefined();
    expect(await inspectProcess(77, fakeExec({ code: 0, stdout: "garbage\n", stderr: "" }))).toBeUndefined();
    for (const pid of [0, -1, 1.5, Number.NaN]) {
      expect(await inspectProcess(pid, fakeExec({ code: 0, stdout: "1 vx", stderr: "" }, calls))).toBeUndefined();
    }
    expect(calls).toEqual([]);
  });
});

describe("isLiveVx against real processes", () => {
  test("this test runner is alive but not vx", async () => {
    expect(await isLiveVx(process.pid, realExec)).toBe(false);
  });

  test("a process whose command is vx is live vx; once it exits (pid gone) it is not", async () => {
    const proc = Bun.spawn(["sleep", "60"], { argv0: "/opt/bin/vx" });
    try {
      expect(await isLiveVx(proc.pid, realExec)).toBe(true);
      expect((await inspectProcess(proc.pid, realExec))?.ppid).toBe(process.pid);
    } finally {
      proc.kill();
      await proc.exited;
    }
    expect(await isLiveVx(proc.pid, realExec)).toBe(false);
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
