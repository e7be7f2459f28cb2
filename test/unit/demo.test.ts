/** The pure parts of `vx demo` (CMD-DEMO-01/02): the soldier's script lines, conflict resolution, wake parsing, refusals. */
import { describe, expect, test } from "bun:test";
import { directives, inputReader, keepBoth, reportFile } from "../../src/demo/soldier";
import type { Narrator } from "../../src/demo/narrate";
import { ORDERS, commanderScript, wakeChanges } from "../../src/demo/script";
import { demoEnv, worldAt } from "../../src/demo/world";
import { HARNESSES, LISTED_HARNESS_NAMES } from "../../src/harnesses";
import { demo } from "../../src/harnesses/demo";
import { stateHooks } from "../../src/harnesses/soldier-hooks";
import { dispatchText, followUpText } from "../../src/soldiers/prompt-text";
import { testDeps } from "../deps";
import { execStub } from "../fakes/exec";

describe("demo soldier script", () => {
  test("reads only the general's own text, never vx's blocks below it", () => {
    const text = dispatchText({ prompt: "Do it.\nwrite a/b.txt: hi there\nask: which one?", kind: "scout", reportPath: "/s/reports/x.md", pauseFile: "/s/p.md" });
    expect(directives(text)).toEqual([
      { kind: "write", file: "a/b.txt", text: "hi there" },
      { kind: "ask", question: "which one?" },
    ]);
    // The dispatch blocks mention "needs-decision: <...>" and a report path: neither is a script line.
    expect(reportFile(text)).toBe("/s/reports/x.md");
    expect(directives(followUpText("Spanish.\nreport: in Spanish\nrebase onto main"))).toEqual([
      { kind: "report", text: "in Spanish" },
      { kind: "rebase", onto: "main" },
    ]);
  });

  test("never writes outside its camp", () => {
    expect(directives("write /etc/passwd: x\nwrite ../up.txt: x\nwrite a/../../b: x")).toEqual([]);
  });

  test("a conflict keeps both sides, markers and repeated lines dropped", () => {
    const conflicted = "<<<<<<< HEAD\nHello, world!\n=======\nWelcome!\n>>>>>>> abc (greeting)\n";
    expect(keepBoth(conflicted)).toBe("Hello, world!\nWelcome!\n");
    expect(keepBoth("same\n<<<<<<< HEAD\nsame\n=======\nother\n>>>>>>> x\n")).toBe("same\nother\n");
  });
});

describe("demo commander", () => {
  test("reads each change of a wake, with a scout's report path", () => {
    const text = [
      "A vexillum soldier's status changed:",
      "- mission 0123456789abcdef: running -> done",
      "- scout fedcba9876543210: running -> done",
      "  report: /s/reports/bravo-fedcba9876543210.md",
      "- scout 00000000000000aa: running -> blocked",
      "Check on it (and report to the general, or land/strike as appropriate) before ending your turn.",
    ].join("\n");
    expect(wakeChanges(text)).toEqual([
      { id: "0123456789abcdef", to: "done" },
      { id: "fedcba9876543210", to: "done", report: "/s/reports/bravo-fedcba9876543210.md" },
      { id: "00000000000000aa", to: "blocked" },
    ]);
  });

  test("the demo's environment drops the person's tmux, herdr, vx and git settings", () => {
    const env = demoEnv({ PATH: "/bin", HOME: "/h", TMUX: "/tmp/s,1,0", TMUX_PANE: "%1", HERDR_PANE_ID: "p", VX_TIME_SCALE: "5", GIT_DIR: "/x", CLAUDE_CODE_ENTRYPOINT: "cli" }, "/d", "/d/home");
    expect(env).toEqual({ PATH: "/bin", HOME: "/d/home", GIT_CONFIG_NOSYSTEM: "1", TMUX_TMPDIR: "/d/tmux", VX_TIME_SCALE: "0.2", VX_DEMO: "1" });
  });
});

describe("demo harness", () => {
  test("is registered, but never listed (help, completions, init, config, doctor)", () => {
    expect(HARNESSES.demo).toBe(demo);
    expect(LISTED_HARNESS_NAMES as readonly string[]).not.toContain("demo");
  });

  test("is refused outside vx demo and on herdr; other harnesses pass", () => {
    expect(demo.launchRefusal({}, "tmux")).toBe("the demo harness is for 'vx demo' only - run: vx demo");
    expect(demo.launchRefusal({ VX_DEMO: "1" }, "herdr")).toStartWith("the demo harness runs only on the tmux backend");
    expect(demo.launchRefusal({ VX_DEMO: "1" }, "tmux")).toBeUndefined();
    expect(HARNESSES.codex.launchRefusal({}, "herdr")).toBeUndefined();
  });

  test("runs vx itself, and its hook names vx by path with the task's identity", () => {
    expect(demo.program(["/usr/bin/vx"])).toEqual(["/usr/bin/vx", "__demo-soldier"]);
    expect(demo.program(["/usr/bin/bun", "/src/cli.ts"])).toEqual(["/usr/bin/bun", "/src/cli.ts", "__demo-soldier"]);
    expect(demo.soldierArgs("opus", "high")).toEqual([]);
    expect(HARNESSES.claude.program(["/usr/bin/vx"])).toEqual(["claude"]);
    const hooks = stateHooks("demo", { vx: "/usr/bin/vx", taskId: "0123456789abcdef", hooksDir: "/s/hooks/x" });
    expect(hooks).toEqual({ args: [], files: [], env: { VX_DEMO_REPORT: "/usr/bin/vx", VX_TASK_ID: "0123456789abcdef", VX_HARNESS: "demo" } });
  });
});

describe("demo soldier input", () => {
  test("a bracketed paste is one message, submitted only by the Enter after it, even when split across reads", () => {
    const input = inputReader();
    expect(input("\x1b[200~line one\rline")).toEqual([]);
    expect(input(" two\x1b[20")).toEqual([]);
    expect(input("1~")).toEqual([]);
    expect(input("\r")).toEqual(["line one\nline two"]);
    expect(input("typed\r\r")).toEqual(["typed"]);
  });
});

describe("demo commander, interrupted (Ctrl-C)", () => {
  const quiet: Narrator = { title() {}, say() {}, cmd() {}, out() {}, logTo() {} };

  /** A commander on a strict exec stub; `abortOn` is the argv word whose call the Ctrl-C lands in. */
  function commander(abortOn: string) {
    const ac = new AbortController();
    const stub = execStub();
    const deps = testDeps({ cwd: "/nonexistent", env: {} });
    const world = worldAt(deps, "/nonexistent/vx-demo-abcdef");
    deps.exec = {
      run: async (argv, opts) => {
        const r = await stub.run(argv, opts);
        if (argv.includes(abortOn)) ac.abort();
        return r;
      },
    };
    return { stub, c: { deps, world, say: quiet, signal: ac.signal } };
  }

  test("during vx init: the script stops before the dispatches", async () => {
    const { stub, c } = commander("init");
    stub.expect(["false", "init", "--yes", "--backend", "tmux"]);
    stub.expect(["git", "add", "-A"]).expect(["git", "commit", "-q", "-m", "vx init"]);
    await expect(commanderScript(c)).rejects.toThrow("interrupted");
  });

  test("during the dispatches: they finish, and no await is started", async () => {
    const { stub, c } = commander("dispatch");
    stub.expect(["false", "init", "--yes", "--backend", "tmux"]);
    stub.expect(["git", "add", "-A"]).expect(["git", "commit", "-q", "-m", "vx init"]);
    const running = { stdout: "task_id=0123456789abcdef kind=mission camp_slot=1\nstatus=running\n" };
    stub.expectAnyOrder(ORDERS.map((o) => ({ argv: ["false", "dispatch", "--kind", o.kind, "--backend", "tmux", "--harness", "demo", o.prompt], reply: running })));
    // An await would be a real process of `false`: spawned, it would exit 1 and fail the script otherwise.
    await expect(commanderScript(c)).rejects.toThrow("interrupted");
  });
});
