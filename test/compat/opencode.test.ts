// The real OpenCode TUI as commander (CMDR-08a), in tmux, against the mock chat-completions server,
// with the wake plugin `vx init --commander opencode` writes: a plain `opencode` in the project is
// woken idle and after a running turn, `git status` shows only files meant to be committed, and
// `opencode run` starts no await.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { taskWithWake } from "../await-kit";
import { git, waitFor } from "../helpers";
import { seedOpencode } from "./opencode-setup";
import { type World, requestWith, say, screenShows, wakeDuringBusyTurn, wakeOf, world } from "./world";

let w: World;
const PANE = "oc";

beforeAll(async () => {
  w = await world({ harness: "opencode", commander: "opencode", prepare: (x) => seedOpencode(x.home, x.models.url) });
  // What init wrote is committed, as a user would before starting the commander.
  git(w.project, "add", "-A");
  git(w.project, "commit", "-q", "-m", "vx init");
  w.tmux.start(PANE, [w.exe], w.project);
  // The first start installs OpenCode's own packages into its config dir (npm registry).
  await waitFor(() => w.awaits().length === 1, 180_000, "the plugin's await").catch((err) => {
    throw new Error(`${(err as Error).message}\n--- screen ---\n${w.tmux.screen(PANE)}`);
  });
  // Keys typed before the prompt box is drawn are lost.
  await screenShows(w, PANE, /Ask anything/, 60_000);
});
afterAll(async () => {
  await w?.close();
});

describe("OpenCode commander", () => {
  test("a plain TUI receives a wake while idle, and shows it (the latency is printed)", async () => {
    await say(w, PANE, "hello opencode");
    // Idle again: the footer drops "esc interrupt" (the first turn of a fresh TUI takes seconds).
    await waitFor(() => !w.tmux.screen(PANE).includes("esc interrupt"), 60_000, "the TUI to be idle");
    await waitFor(() => w.awaits().length === 1, 30_000, "the await");
    const t0 = Date.now();
    taskWithWake(w, "b8b8b8b8b8b8b8b8");
    const req = await requestWith(w, wakeOf("b8b8b8b8b8b8b8b8"), t0, 30_000);
    console.log(`compat: opencode idle wake file -> model request: ${req.at - t0} ms`);
    await screenShows(w, PANE, /running -> done/, 30_000);
  });

  test("a busy TUI receives the wake after its running turn", async () => {
    await wakeDuringBusyTurn(w, PANE, "opencode", "c9c9c9c9c9c9c9c9");
  });

  test("git status shows nothing OpenCode or the plugin left in the project", () => {
    expect(git(w.project, "status", "--porcelain", "--untracked-files=all")).toBe("");
  });

  test("opencode run in the project starts no await", async () => {
    const before = w.awaits();
    const p = Bun.spawn([w.exe, "run", "one-shot question"], { cwd: w.project, env: w.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const started = new Set<number>();
    const poll = setInterval(() => {
      for (const pid of w.awaits()) if (!before.includes(pid)) started.add(pid);
    }, 50);
    const code = await p.exited;
    clearInterval(poll);
    expect(code).toBe(0);
    expect([...started]).toEqual([]);
  });
});
