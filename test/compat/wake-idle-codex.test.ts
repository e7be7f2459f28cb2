// Issue 17 item 1 (AWT-12, CMDR-10): a hook-less commander in a plain tmux pane, no herdr. The
// real Codex TUI runs `vx dispatch` through its shell tool, which records it from TMUX_PANE (its
// pane, its server, its own pid); idle for more than 100 scaled minutes, it is woken by the
// sentinel within 30 s of its soldier's wake, once, with nothing left unsent in its input line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { screenState } from "../../src/backends/commander-screen";
import { taskWithWake } from "../await-kit";
import { VX_BIN, stopSentinels, waitFor } from "../helpers";
import { seedCodex, stopCodexDaemon } from "./codex-setup";
import type { LoggedRequest } from "./mock-models";
import { type World, requestWith, say, screenShows, wakeOf, world } from "./world";

// The sentinel's clock: 100 scaled minutes are 30 s, and its 5 s poll is 25 ms.
const SCALE = 0.005;
const MIN = 60_000 * SCALE;
const PANE = "codex";
let w: World;
let sentinel: Bun.Subprocess | undefined;

const lastItem = (r: LoggedRequest) => ((r.body as { input?: { type?: string }[] })?.input ?? []).at(-1);
const idleUntil = (at: number, what: string) => waitFor(() => Date.now() >= at || undefined, at - Date.now() + 60_000, what);

beforeAll(async () => {
  w = await world({
    harness: "codex",
    commander: "codex",
    prepare: (x) => {
      // Codex runs commands in a login shell: as a user would, ~/.profile puts vx on PATH.
      writeFileSync(join(x.home, ".profile"), `export PATH=${JSON.stringify(x.env.PATH)}\n`);
      return seedCodex(x.home, x.project, x.models.url);
    },
  });
  sentinel = Bun.spawn([VX_BIN, "sentinel"], { cwd: w.home, env: { ...w.env, VX_TIME_SCALE: String(SCALE) }, stdout: "ignore", stderr: "ignore" });
  await waitFor(() => w.sentinelPid(), 20_000, "the sentinel");
  // A plain tmux pane: no herdr variables reach Codex or the commands it runs.
  w.tmux.start(PANE, ["env", "-u", "HERDR_PANE_ID", "-u", "HERDR_WORKSPACE_ID", w.exe], w.project);
  await screenShows(w, PANE, /Ask Codex to do anything/, 90_000);
});
afterAll(async () => {
  if (w) {
    stopCodexDaemon(w.exe, w.env);
    await stopSentinels(w.home, sentinel ? [sentinel.pid] : []);
    await w.close();
  }
});

describe("a Codex commander in a plain tmux pane, idle for hours", () => {
  test("a vx dispatch run by Codex records it from its tmux pane, with its own pid", async () => {
    w.models.respond((r) => {
      if (!r.lastUser.startsWith("dispatch a soldier")) return undefined;
      if (lastItem(r)?.type === "function_call_output") return { text: "dispatched" };
      return { tool: { name: "exec_command", input: { cmd: "vx dispatch --backend tmux compat soldier task" } } };
    });
    await say(w, PANE, "dispatch a soldier");
    const entry = await waitFor(
      () => {
        try {
          return JSON.parse(readFileSync(join(w.stateDir, "commanders.json"), "utf8")).commanders.codex;
        } catch {
          return undefined;
        }
      },
      90_000,
      "the codex commander's registration",
    );
    console.log(`compat: codex commander in plain tmux registered as ${JSON.stringify({ ...entry, codex_home: undefined })}`);
    expect(entry.herdr_pane_id).toBeUndefined();
    expect(entry.tmux_pane).toMatch(/^%\d+$/);
    expect(entry.pid).toBeGreaterThan(1);
    expect(entry.codex_thread_id).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => w.models.turns().some((r) => r.lastUser.includes("dispatch a soldier") && lastItem(r)?.type === "function_call_output"), 60_000, "the tool result");
    w.models.respond(undefined);
  });

  test("idle for 105 scaled minutes, it is woken within 30 s of its soldier's wake, once, its input line empty", async () => {
    const lastTurn = Math.max(...w.models.turns().map((r) => r.at));
    await idleUntil(lastTurn + 105 * MIN, "105 scaled minutes of idleness");
    const t0 = Date.now();
    taskWithWake(w, "e1e1e1e1e1e1e1e1");
    const req = await requestWith(w, wakeOf("e1e1e1e1e1e1e1e1"), t0, 30_000);
    console.log(`compat: codex in plain tmux idle ${Math.round((t0 - lastTurn) / MIN)} scaled min, wake file -> model request: ${req.at - t0} ms`);
    await screenShows(w, PANE, /mission e1e1e1e1e1e1e1e1: running -> done/, 30_000);
    // Settled: the turn it started has ended, and nothing was delivered twice.
    await waitFor(() => (screenState("codex", w.tmux.screen(PANE)).idle ? true : undefined), 60_000, "Codex idle again");
    expect(w.models.turns().filter((r) => r.lastUser.includes(wakeOf("e1e1e1e1e1e1e1e1"))).length).toBe(1);
    expect(screenState("codex", w.tmux.screen(PANE)).inputEmpty).toBe(true);
  });
});
