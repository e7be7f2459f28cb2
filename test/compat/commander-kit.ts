/**
 * A commander against its mock model, with the sentinel running, on the world's terminal (a plain
 * tmux pane, CMDR-10, or a real herdr pane: `w.term`). A hook-less one (Gemini CLI, Copilot CLI)
 * registers itself by running `vx dispatch` from its shell tool, then the sentinel types wakes into
 * its pane only while its screen shows it idle with an empty input line, read by the harness
 * module's own rules (`screenState`). The wake checks are `commander-checks.ts`.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { screenState } from "../../src/backends/commander-screen";
import { VX_BIN, vx, waitFor } from "../helpers";
import { isToolResult } from "./soldier-kit";
import type { HarnessName } from "./harnesses";
import { conversationOf, shellCall } from "./fleet";
import { type World, say } from "./world";

export type Hookless = "gemini" | "copilot";

/** Where the world's commander runs, for the printed figures. */
export const where = (w: World) => (w.herdr ? "in a herdr pane" : "in plain tmux");

/** The sentinel's clock: its 5 s poll is 1 s. */
export const SENTINEL_SCALE = 0.2;

/** Starts the sentinel before anything auto-starts one, on the faster clock; returns it. */
export async function startSentinel(w: World): Promise<Bun.Subprocess> {
  const s = Bun.spawn([VX_BIN, "sentinel"], { cwd: w.home, env: { ...w.env, VX_TIME_SCALE: String(SENTINEL_SCALE) }, stdout: "ignore", stderr: "ignore" });
  await waitFor(() => w.sentinelPid(), 20_000, "the sentinel");
  return s;
}

/** Runs `argv` in a plain tmux pane: no herdr variables reach the harness or what it runs. */
export function startPlain(w: World, pane: string, argv: string[]): void {
  w.tmux.start(pane, ["env", "-u", "HERDR_PANE_ID", "-u", "HERDR_WORKSPACE_ID", ...argv], w.project);
}

const state = (w: World, pane: string, h: HarnessName) => screenState(h, w.term.screen(pane));

/** Waits until the pane shows the harness idle with an empty input line (by its module's rules). */
export async function settled(w: World, pane: string, h: HarnessName, what: string, timeoutMs = 120_000): Promise<void> {
  try {
    await waitFor(
      () => {
        const s = state(w, pane, h);
        return s.idle && s.inputEmpty ? true : undefined;
      },
      timeoutMs,
      what,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- screen ---\n${w.term.screen(pane)}`);
  }
}

/**
 * The commander runs a `vx dispatch` through its shell tool; returns its commanders.json entry.
 * `allow`: the harness's dialog asking to run that command, which the person answers with Enter
 * (its first option allows once), again every 3 s while it still shows (a key pressed as the
 * dialog is drawn can be dropped).
 */
export async function registerFromPane(w: World, pane: string, h: HarnessName, allow?: RegExp): Promise<Record<string, unknown>> {
  // A demo soldier (no model of its own): only the registration matters here.
  const cmd = `VX_DEMO=1 vx dispatch --harness demo --backend tmux "nothing to do"`;
  w.models.respond((r) => (r.lastUser.includes("register please") && conversationOf(r) && !isToolResult(r) ? { tool: shellCall(h, cmd) } : undefined));
  try {
    await say(w, pane, "register please");
    let pressed = 0;
    const entry = await waitFor(
      () => {
        if (allow && Date.now() - pressed >= 3000 && allow.test(w.term.screen(pane))) {
          console.log(`compat: ${h} ${where(w)} asks to run vx dispatch; the person allows it once`);
          w.term.keys(pane, "Enter");
          pressed = Date.now();
        }
        try {
          return JSON.parse(readFileSync(join(w.stateDir, "commanders.json"), "utf8")).commanders[h];
        } catch {
          return undefined;
        }
      },
      120_000,
      `the ${h} commander's registration`,
    ).catch((err) => {
      const results = w.models
        .turns()
        .filter(isToolResult)
        .map((r) => r.lastUser);
      throw new Error(`${(err as Error).message}\n--- tool results ---\n${results.join("\n")}\n--- screen ---\n${w.term.screen(pane)}`);
    });
    await waitFor(() => w.models.turns().some((r) => isToolResult(r)), 120_000, "the tool's result");
    // The demo soldier would settle (unconfirmed: no commit) whenever a loaded machine gets to
    // it and wake the commander in the middle of a later test: the general strikes it now.
    const ids = readdirSync(join(w.stateDir, "tasks"))
      .filter((n) => n.endsWith(".json"))
      .map((n) => n.slice(0, -5));
    for (const id of ids) {
      const r = await vx(["strike", id, "--discard"], { cwd: w.project, env: w.env });
      if (r.code !== 0) throw new Error(`vx strike ${id} --discard: ${r.stderr}`);
    }
    return entry;
  } finally {
    w.models.respond(undefined);
  }
}
