// Issue 17 item 1 (AWT-05, AWT-12): no wake waits forever. The real Claude Code as commander, its
// Stop hook's await in compressed time (VX_TIME_SCALE in Claude Code's environment, so every hook
// it runs has it): a commander idle for more than 100 scaled minutes is still woken by its soldier,
// once, with its input box left as it was; and 48 idle scaled hours with nothing to report cost it
// at most 2 model turns (the figure is printed), with an await still listening at the end.
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { REARM_TEXT } from "../../src/awaiters/rearm";
import { taskWithWake } from "../await-kit";
import { VX_BIN, stopSentinels, waitFor } from "../helpers";
import { claudeEnv, seedClaude } from "./claude-setup";
import { type World, requestWith, say, screenShows, wakeOf, world } from "./world";

const SCALE = 0.0005;
const MIN = 60_000 * SCALE;
const HOUR = 60 * MIN;
const PANE = "cmd";
let w: World;
let sentinel: Bun.Subprocess | undefined;

/** Wall time passes: the condition is the clock itself (the premise of the test, not a sync). */
const idleUntil = (at: number, what: string) => waitFor(() => Date.now() >= at || undefined, at - Date.now() + 60_000, what);

/** The text on Claude Code's input line (after its `❯`), trimmed; undefined when none shows. */
function inputLine(screen: string): string | undefined {
  const line = screen.split("\n").findLast((l) => l.trimStart().startsWith("❯"));
  return line?.trimStart().slice(1).trim();
}

/**
 * A Claude Code commander in compressed time, with a sentinel at real timing started first (so no
 * await auto-starts one in compressed time). On the tmux backend its pane has no herdr variables.
 */
async function commander(backend: "herdr" | "tmux"): Promise<{ w: World; sentinel: Bun.Subprocess }> {
  const x = await world({
    harness: "claude",
    commander: "claude",
    prepare: (y) => {
      seedClaude(y.home, [y.project]);
      if (backend === "tmux") {
        const config = join(y.project, ".vexillum", "config.json");
        writeFileSync(config, `${JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), backend: "tmux" }, null, 2)}\n`);
      }
      return claudeEnv(y.models.url);
    },
  });
  const proc = Bun.spawn([VX_BIN, "sentinel"], { cwd: x.home, env: x.env, stdout: "ignore", stderr: "ignore" });
  await waitFor(() => x.sentinelPid(), 20_000, "the sentinel");
  const plain = backend === "tmux" ? ["-u", "HERDR_PANE_ID", "-u", "HERDR_WORKSPACE_ID"] : [];
  // Only Claude Code (and so its hooks) runs in compressed time.
  x.tmux.start(PANE, ["env", ...plain, `VX_TIME_SCALE=${SCALE}`, x.exe], x.project);
  await screenShows(x, PANE, /❯/, 90_000);
  return { w: x, sentinel: proc };
}

async function close(x: World | undefined, proc: Bun.Subprocess | undefined): Promise<void> {
  if (!x) return;
  await stopSentinels(x.home, proc ? [proc.pid] : []);
  await x.close();
}

/** (a): a turn, 110 scaled minutes of idleness, then a soldier's wake: delivered within 30 s, once. */
async function wokenAfterIdle(x: World, id: string, label: string): Promise<void> {
  await say(x, PANE, "walk away now");
  const first = await waitFor(() => (x.awaits().length === 1 ? x.awaits()[0] : undefined), 60_000, "the turn's await");
  // Idle from the moment the turn ended (its await running), not from the model request.
  const lastTurn = Date.now();
  // What Claude Code itself keeps about the live session (docs/real-clients.md).
  const sessions = join(x.home, ".claude", "sessions");
  // Only `<pid>.json`: its neighbour `<pid>.<hash>.key` holds a peer token, never printed.
  if (existsSync(sessions))
    for (const f of readdirSync(sessions).filter((n) => /^\d+\.json$/.test(n))) console.log(`compat: ~/.claude/sessions/${f}: ${readFileSync(join(sessions, f), "utf8").trim()}`);
  await idleUntil(lastTurn + 110 * MIN, "110 scaled minutes of idleness");
  // Seed 000's await gave up after 55 minutes; this one is the same process, still listening.
  expect(x.awaits()).toEqual([first]);
  const t0 = Date.now();
  taskWithWake(x, id);
  const req = await requestWith(x, wakeOf(id), t0, 30_000);
  console.log(`compat: claude (${label}) idle ${Math.round((t0 - lastTurn) / MIN)} scaled min, wake file -> model request: ${req.at - t0} ms`);
  // The woken turn ends with a fresh await; by then any second delivery would have happened.
  await waitFor(() => (x.awaits().length === 1 && x.awaits()[0] !== first ? true : undefined), 60_000, "the next await");
  expect(x.models.turns().filter((r) => r.lastUser.includes(wakeOf(id))).length).toBe(1);
  expect(inputLine(x.tmux.screen(PANE))).toBe("");
}

beforeAll(async () => {
  ({ w, sentinel } = await commander("herdr"));
});
afterAll(() => close(w, sentinel));

describe("a Claude Code commander that has been idle for hours", () => {
  test("idle for 110 scaled minutes, it is woken within 30 s of its soldier's wake, once, its input box untouched", async () => {
    await wokenAfterIdle(w, "d1d1d1d1d1d1d1d1", "herdr");
  });

  test("a person's unsent draft stays unsent and in the box when a wake arrives", async () => {
    w.tmux.type(PANE, "half a thought");
    await screenShows(w, PANE, /half a thought/);
    const before = w.awaits()[0];
    const t0 = Date.now();
    taskWithWake(w, "d2d2d2d2d2d2d2d2");
    await requestWith(w, wakeOf("d2d2d2d2d2d2d2d2"), t0, 30_000);
    await waitFor(() => (w.awaits().length === 1 && w.awaits()[0] !== before ? true : undefined), 60_000, "the next await");
    expect(w.models.turns().some((r) => r.lastUser.includes("half a thought"))).toBe(false);
    expect(inputLine(w.tmux.screen(PANE))).toBe("half a thought");
    // Clear the draft (Claude Code's ctrl-u clears the line), leaving the box as it was.
    w.tmux.keys(PANE, "C-u");
    await waitFor(() => (inputLine(w.tmux.screen(PANE)) === "" ? true : undefined), 10_000, "an empty input line");
  });

  test("48 idle scaled hours with nothing to report cost at most 2 model turns, and it still listens", async () => {
    const t0 = Date.now();
    const before = w.models.turns().length;
    await idleUntil(t0 + 48 * HOUR, "48 scaled hours of idleness");
    const during = w.models.turns().slice(before);
    const rearms = during.filter((r) => r.lastUser.includes(REARM_TEXT)).length;
    console.log(`compat: claude idle 48 scaled hours (VX_TIME_SCALE=${SCALE}): ${during.length} model request(s), ${rearms} of them re-arm turn(s)`);
    expect(during.length).toBeLessThanOrEqual(2);
    expect(rearms).toBeGreaterThanOrEqual(1);
    // Never deaf: an await listens at the end of the window, and a wake still gets through.
    await waitFor(() => (w.awaits().length === 1 ? true : undefined), 60_000, "a listening await");
    const t1 = Date.now();
    taskWithWake(w, "d3d3d3d3d3d3d3d3");
    const req = await requestWith(w, wakeOf("d3d3d3d3d3d3d3d3"), t1, 30_000);
    console.log(`compat: claude after 48 idle scaled hours, wake file -> model request: ${req.at - t1} ms`);
  });
});

describe("the same on the tmux backend, in a plain tmux pane (no herdr)", () => {
  let t: World | undefined;
  let proc: Bun.Subprocess | undefined;
  beforeAll(async () => {
    ({ w: t, sentinel: proc } = await commander("tmux"));
  });
  afterAll(() => close(t, proc));

  test("idle for 110 scaled minutes, it is woken within 30 s of its soldier's wake, once, its input box untouched", async () => {
    await wokenAfterIdle(t!, "d4d4d4d4d4d4d4d4", "tmux");
  });
});
