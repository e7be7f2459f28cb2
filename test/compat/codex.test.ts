// The real Codex TUI as commander (CMDR-09), in tmux, against the mock Responses server: the
// commander runs `vx dispatch` through its shell tool (which records its thread), then the
// sentinel's wakes reach it through `codex queue`, idle and after a running turn.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { taskWithWake } from "../await-kit";
import { addAgent, createWorkspace } from "../fakes/herdr-control";
import { VX_BIN, stopSentinels, waitFor } from "../helpers";
import { seedCodex, stopCodexDaemon } from "./codex-setup";
import type { LoggedRequest } from "./mock-models";
import { type World, requestWith, say, screenShows, wakeDuringBusyTurn, wakeOf, world } from "./world";

let w: World;
let sentinel: Bun.Subprocess | undefined;
const PANE = "codex";

/** The last input item of a Responses request: a tool result means the model's tool call ran. */
const lastItem = (r: LoggedRequest) => ((r.body as { input?: { type?: string; output?: unknown }[] })?.input ?? []).at(-1);

beforeAll(async () => {
  w = await world({
    harness: "codex",
    commander: "codex",
    prepare: (x) => {
      // herdr shows the commander's pane running Codex (CMDR-03's liveness).
      const ws = createWorkspace(x.env as never, { cwd: x.project });
      addAgent(x.env as never, ws.pane_id, { kind: "codex", status: "idle" });
      // Codex runs commands in a login shell: as a user would, ~/.profile puts vx and herdr on PATH.
      writeFileSync(join(x.home, ".profile"), `export PATH=${JSON.stringify(x.env.PATH)}\n`);
      return { ...seedCodex(x.home, x.project, x.models.url), HERDR_PANE_ID: ws.pane_id, HERDR_WORKSPACE_ID: ws.workspace_id };
    },
  });
  // The sentinel at real timing, started first so the dispatch below finds it running.
  sentinel = Bun.spawn([VX_BIN, "sentinel"], { cwd: w.home, env: w.env, stdout: "ignore", stderr: "ignore" });
  await waitFor(() => w.sentinelPid(), 20_000, "the sentinel");
  w.tmux.start(PANE, [w.exe], w.project);
  await screenShows(w, PANE, /Ask Codex to do anything/, 90_000);
});
afterAll(async () => {
  if (w) {
    stopCodexDaemon(w.exe, w.env);
    await stopSentinels(w.home, sentinel ? [sentinel.pid] : []);
    await w.close();
  }
});

describe("Codex commander", () => {
  test("a vx dispatch run by Codex records the commander with its own thread", async () => {
    // A short quick-settle probe keeps the tool call brief; the sentinel already runs at real timing.
    w.models.respond((r) => {
      // Codex's title turn quotes the prompt too; only the user's own turn gets the tool call.
      if (!r.lastUser.startsWith("dispatch a soldier")) return undefined;
      if (lastItem(r)?.type === "function_call_output") return { text: "dispatched" };
      return { tool: { name: "exec_command", input: { cmd: "VX_TIME_SCALE=0.05 vx dispatch compat soldier task" } } };
    });
    await say(w, PANE, "dispatch a soldier");
    const file = join(w.stateDir, "commanders.json");
    const entry = await waitFor(
      () => {
        try {
          return JSON.parse(readFileSync(file, "utf8")).commanders.codex;
        } catch {
          return undefined;
        }
      },
      90_000,
      "the codex commander's registration",
    );
    expect(entry.codex_thread_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(entry.codex_home).toBe(w.env.CODEX_HOME);
    await waitFor(() => w.models.turns().some((r) => r.lastUser.includes("dispatch a soldier") && lastItem(r)?.type === "function_call_output"), 60_000, "the tool result");
    w.models.respond(undefined);
  });

  test("an idle Codex receives a wake within 5 s of the wake file", async () => {
    const t0 = Date.now();
    taskWithWake(w, "f6f6f6f6f6f6f6f6");
    const req = await requestWith(w, wakeOf("f6f6f6f6f6f6f6f6"), t0, 30_000);
    console.log(`compat: codex idle wake file -> model request: ${req.at - t0} ms`);
    // The TUI ran it, not a headless thread: it is on the commander's screen.
    await screenShows(w, PANE, /mission f6f6f6f6f6f6f6f6: running -> done/, 30_000);
  });

  test("a busy Codex receives the wake after its running turn", async () => {
    await wakeDuringBusyTurn(w, PANE, "codex", "a7a7a7a7a7a7a7a7");
  });
});
