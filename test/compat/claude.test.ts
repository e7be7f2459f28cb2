// The real Claude Code as commander, in tmux, against the mock Anthropic server: the Stop hook's
// await (AWT-06, owner-bound), wakes reaching the model, print mode, and a sentinel that outlives
// the session (SEN-23).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { taskWithWake } from "../await-kit";
import { alive, waitFor } from "../helpers";
import { claudeEnv, seedClaude } from "./claude-setup";
import { type World, requestWith, screenShows, world } from "./world";

const WAKE = "A vexillum soldier's status changed";
let w: World;

/** A world whose commander is the real Claude Code, in tmux panes `columns` wide (default: wide). */
function claudeWorld(columns?: number): Promise<World> {
  return world({
    harness: "claude",
    commander: "claude",
    columns,
    prepare: (x) => {
      seedClaude(x.home, [x.project]);
      return claudeEnv(x.models.url);
    },
  });
}

beforeAll(async () => {
  w = await claudeWorld();
});
afterAll(async () => {
  await w?.close();
});

async function startClaude(name: string, x: World = w): Promise<number> {
  const pid = x.tmux.start(name, [x.exe], x.project);
  await screenShows(x, name, /❯/, 90_000);
  return pid;
}

/** One user turn: type, submit, wait for the model to see it and for the turn's Stop hook await. */
async function turn(name: string, text: string, previousAwait?: number, x: World = w): Promise<number> {
  x.tmux.type(name, text);
  await screenShows(x, name, new RegExp(text));
  x.tmux.keys(name, "Enter");
  await requestWith(x, text, 0, 90_000);
  return waitFor(
    () => {
      const live = x.awaits();
      return live.length === 1 && live[0] !== previousAwait ? live[0] : undefined;
    },
    60_000,
    `the await of the turn "${text}" to be the only live one`,
  );
}

describe("Claude Code commander", () => {
  let claude: number;
  let sentinel: number | undefined;

  test("after 3 turns exactly one await is alive, owned by Claude Code", async () => {
    claude = await startClaude("cmd");
    let last: number | undefined;
    for (const text of ["first turn", "second turn", "third turn"]) last = await turn("cmd", text, last);
    expect(w.awaits()).toEqual([last!]);
    expect(w.awaiterRecords()).toEqual([`${last}.json`]);
    sentinel = await waitFor(() => w.sentinelPid(), 20_000, "the auto-started sentinel");
  });

  test("a wake reaches the model within 3 s of the wake file", async () => {
    const t0 = Date.now();
    taskWithWake(w, "c1c1c1c1c1c1c1c1");
    const req = await requestWith(w, WAKE, t0, 30_000);
    const latency = req.at - t0;
    console.log(`compat: claude wake file -> model request: ${latency} ms`);
    expect(req.lastUser).toContain("mission c1c1c1c1c1c1c1c1: running -> done");
    // The woken turn ends with a fresh await, still one.
    await waitFor(() => w.awaits().length === 1, 60_000, "one await after the woken turn");
  });

  test("/exit leaves no await and no awaiter record within 10 s; the sentinel survives", async () => {
    w.tmux.type("cmd", "/exit");
    await screenShows(w, "cmd", /\/exit/);
    w.tmux.keys("cmd", "Enter");
    await waitFor(() => !alive(claude), 30_000, "Claude Code to exit");
    const t0 = Date.now();
    await waitFor(() => w.awaits().length === 0 && w.awaiterRecords().length === 0, 10_000, "no await and no record");
    console.log(`compat: claude /exit -> no await: ${Date.now() - t0} ms`);
    expect(sentinel).toBeDefined();
    expect(alive(sentinel!)).toBe(true);
  });

  test("kill -9 of Claude Code leaves no await and no awaiter record within 10 s", async () => {
    const pid = await startClaude("cmd2");
    await turn("cmd2", "a turn before the kill");
    process.kill(pid, "SIGKILL");
    const t0 = Date.now();
    await waitFor(() => w.awaits().length === 0 && w.awaiterRecords().length === 0, 10_000, "no await and no record");
    console.log(`compat: claude kill -9 -> no await: ${Date.now() - t0} ms`);
    expect(alive(sentinel!)).toBe(true);
  });

  test("claude -p in an initialized project with HERDR_WORKSPACE_ID set exits within 15 s", async () => {
    const t0 = Date.now();
    const p = Bun.spawn([w.exe, "-p", "print mode question"], { cwd: w.project, env: w.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const code = await Promise.race([p.exited, Bun.sleep(15_000).then(() => "timeout" as const)]);
    if (code === "timeout") p.kill("SIGKILL");
    console.log(`compat: claude -p exited in ${Date.now() - t0} ms`);
    expect(code).toBe(0);
    expect(await new Response(p.stdout).text()).toContain("ok");
    expect(w.awaits()).toEqual([]);
  });
});

// A normal-width terminal: Claude Code hands its hooks the pane's COLUMNS, and nothing vx reads
// about processes may be cut to it (the hook wrapper's line once lost its `sentinel await` tail,
// and each turn's await then had an owner of its own).
describe.each([80, 200])("Claude Code commander in a %i-column terminal", (columns) => {
  let x: World;
  beforeAll(async () => {
    x = await claudeWorld(columns);
  });
  afterAll(async () => {
    await x?.close();
  });

  test("awaits do not pile up over 3 turns, and kill -9 of Claude Code orphans none", async () => {
    const t0 = Date.now();
    const pid = await startClaude("narrow", x);
    let last: number | undefined;
    for (const text of ["first narrow turn", "second narrow turn", "third narrow turn"]) {
      last = await turn("narrow", text, last, x);
      expect(x.awaits().length).toBeLessThanOrEqual(1);
    }
    expect(x.awaits()).toEqual([last!]);
    expect(x.awaiterRecords()).toEqual([`${last}.json`]);
    process.kill(pid, "SIGKILL");
    await waitFor(() => x.awaits().length === 0 && x.awaiterRecords().length === 0, 10_000, "no orphaned await and no record");
    console.log(`compat: claude at ${columns} columns, 3 turns and kill -9: ${Date.now() - t0} ms`);
  });
});
