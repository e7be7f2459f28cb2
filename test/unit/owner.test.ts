// AWT-06's owner walk and AWT-01's print-mode rule, on command lines as `ps` prints them, and on
// real processes read while the caller's terminal is narrow.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { realpathSync } from "node:fs";
import { basename } from "node:path";
import { chainHolds, findOwner, isHookShell, isNonInteractiveSession } from "../../src/awaiters/owner";
import { type Exec, realExec } from "../../src/exec";
import { HOOK_COMMAND } from "../../src/scaffold/hook";
import { execStub, psCall } from "../fakes/exec";
import { execed } from "../exec-wait";

// The `ps` path (every platform but Linux), which the table below stands in for.
const PS = "darwin";

/**
 * A stub that must see `ps -o ppid=,command= -p <pid>` for exactly these pids, in this order: each
 * row is [pid, ppid, command], or [pid] for a process that is gone.
 */
function psWalk(...rows: ([number, number, string] | [number])[]): Exec {
  const stub = execStub();
  for (const [pid, ppid, command] of rows) {
    const { argv, reply } = psCall(pid, command === undefined ? undefined : `${ppid} ${command}`);
    stub.expect(argv, reply);
  }
  return stub;
}

describe("isHookShell", () => {
  test.each([
    [`/bin/sh -c ${HOOK_COMMAND}`, true],
    [`sh -c ${HOOK_COMMAND}`, true],
    [`/usr/bin/bash -c vx sentinel await`, true],
    [`-dash -c vx sentinel await`, true],
    [`sh -c echo hello`, false],
    [`/usr/local/bin/claude`, false],
    [`node /usr/lib/pi/cli.js vx sentinel await`, false],
    [`/root/.local/bin/vx sentinel await`, false],
  ])("%s -> %p", (command, want) => expect(isHookShell(command)).toBe(want));
});

describe("findOwner", () => {
  const hook = `/bin/sh -c ${HOOK_COMMAND}`;
  test("skips the per-hook shell and names the harness", async () => {
    const exec = psWalk([30, 20, hook], [20, 10, "claude --resume"]);
    expect(await findOwner(30, exec, PS)).toEqual({ owner: 20, ownerCommand: "claude --resume", wrappers: [30] });
  });
  test("a parent that is the harness itself has no wrappers", async () => {
    expect(await findOwner(20, psWalk([20, 1, "node pi"]), PS)).toEqual({ owner: 20, ownerCommand: "node pi", wrappers: [] });
  });
  test("a wrapper orphaned to init, or a vanished parent, has no owner", async () => {
    expect(await findOwner(30, psWalk([30, 1, hook]), PS)).toBeUndefined();
    expect(await findOwner(30, psWalk([30]), PS)).toBeUndefined();
  });
});

describe("chainHolds", () => {
  const chain = { owner: 20, ownerCommand: "claude", wrappers: [30] };
  test("holds while the wrapper is the owner's child and the owner lives", async () => {
    expect(await chainHolds(30, chain, psWalk([30, 20, "sh"], [20, 1, "claude"]), PS)).toBe(true);
  });
  test("broken when the await was reparented, the wrapper reparented, or the owner gone", async () => {
    expect(await chainHolds(1, chain, psWalk(), PS)).toBe(false);
    expect(await chainHolds(30, chain, psWalk([30, 1, "sh"]), PS)).toBe(false);
    expect(await chainHolds(30, chain, psWalk([30, 20, "sh"], [20]), PS)).toBe(false);
  });
  test("without wrappers only the parent is compared, with no ps call", async () => {
    const none = psWalk();
    expect(await chainHolds(20, { owner: 20, ownerCommand: "pi", wrappers: [] }, none)).toBe(true);
    expect(await chainHolds(1, { owner: 20, ownerCommand: "pi", wrappers: [] }, none)).toBe(false);
  });
});

/**
 * A real hook wrapper: `/bin/sh -c <command>` whose `sentinel await` comes after 80 columns and
 * which, like dash running a hook, stays alive as the parent of what it runs. With COLUMNS=80 in
 * the environment (a harness in a normal-width terminal), `ps` would cut the line before those
 * words and the wrapper would pass for the owner.
 */
describe("the owner walk on real processes under COLUMNS=80", () => {
  let before: string | undefined;
  beforeEach(() => {
    before = process.env.COLUMNS;
    process.env.COLUMNS = "80";
  });
  afterEach(() => {
    if (before === undefined) delete process.env.COLUMNS;
    else process.env.COLUMNS = before;
  });

  const platforms = process.platform === "linux" ? ["linux", PS] : [PS];
  test.each(platforms)("(%s path) the long wrapper is skipped and this test runner is the owner", async (platform) => {
    const command = `: ${"padding-".repeat(12)}; sleep 60; : vx sentinel await`;
    // Its own process group: the shell's `sleep 60` child goes with it, not left running for a minute.
    const wrapper = Bun.spawn(["/bin/sh", "-c", command], { stdout: "ignore", stderr: "ignore", detached: true });
    try {
      await execed(wrapper.pid, basename(realpathSync("/bin/sh")));
      expect(await findOwner(wrapper.pid, realExec, platform)).toEqual({ owner: process.pid, ownerCommand: expect.any(String), wrappers: [wrapper.pid] });
      expect(await chainHolds(wrapper.pid, { owner: process.pid, ownerCommand: "", wrappers: [wrapper.pid] }, realExec, platform)).toBe(true);
    } finally {
      process.kill(-wrapper.pid, "SIGKILL");
      await wrapper.exited;
    }
  });
});

describe("isNonInteractiveSession", () => {
  test.each([
    [{ CLAUDE_CODE_ENTRYPOINT: "sdk-cli" }, undefined, true],
    [{ CLAUDE_CODE_ENTRYPOINT: "sdk-ts" }, "claude", true],
    [{ CLAUDE_CODE_ENTRYPOINT: "cli" }, "claude", false],
    [{}, "/usr/bin/claude -p say hi", true],
    [{}, "/usr/bin/claude --print", true],
    [{ CLAUDECODE: "1" }, "node /x/cli.js -p hi", true],
    [{}, "node /x/pi -p hi", false],
    [{}, "claude --permission-mode plan", false],
  ] as const)("%o %s -> %p", (env, command, want) => expect(isNonInteractiveSession(env, command)).toBe(want));
});
