import { describe, expect, test } from "bun:test";
import type { Exec, ExecResult } from "../../src/exec";
import { realExec } from "../../src/exec";
import { inspectProcess, isAwaitCommand, isLiveVx, isVxCommand } from "../../src/procs";

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
