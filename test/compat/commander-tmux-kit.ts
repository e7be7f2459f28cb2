/**
 * A hook-less commander (Gemini CLI, Copilot CLI) running in a plain tmux pane, no herdr (CMDR-10),
 * against its mock model, with the sentinel running: it registers itself by running `vx dispatch`
 * from its shell tool, then the sentinel types wakes into its pane only while its screen shows it
 * idle with an empty input line. The checks read the model's requests (what it was sent) and the
 * pane's screen by the harness module's own rules (`screenState`).
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { screenState } from "../../src/backends/tmux-commander";
import { taskWithWake } from "../await-kit";
import { VX_BIN, vx, waitFor } from "../helpers";
import type { LoggedRequest } from "./mock-models";
import { isToolResult } from "./soldier-kit";
import { shellCall } from "./tmux-fleet";
import { type World, requestWith, say, wakeOf } from "./world";

export type Hookless = "gemini" | "copilot";

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

const state = (w: World, pane: string, h: Hookless) => screenState(h, w.tmux.screen(pane));

/** Waits until the pane shows the harness idle with an empty input line (by its module's rules). */
export async function settled(w: World, pane: string, h: Hookless, what: string, timeoutMs = 120_000): Promise<void> {
  try {
    await waitFor(() => {
      const s = state(w, pane, h);
      return s.idle && s.inputEmpty ? true : undefined;
    }, timeoutMs, what);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- screen ---\n${w.tmux.screen(pane)}`);
  }
}

/** How many times `text` is in a request's whole conversation (each delivery is one user message). */
export function timesIn(r: LoggedRequest, text: string): number {
  return JSON.stringify(r.body).split(text).length - 1;
}

/** The newest model request whose conversation holds `text`. */
function newestWith(w: World, text: string): LoggedRequest | undefined {
  return w.models.turns().findLast((r) => timesIn(r, text) > 0);
}

/** The commander runs a `vx dispatch` through its shell tool; returns its commanders.json entry. */
export async function registerFromPane(w: World, pane: string, h: Hookless): Promise<Record<string, unknown>> {
  // A demo soldier (no model of its own): only the registration matters here.
  const cmd = `VX_DEMO=1 vx dispatch --harness demo --backend tmux "nothing to do"`;
  w.models.respond((r) => (r.lastUser.includes("register please") && !isToolResult(r) ? { tool: shellCall(h, cmd) } : undefined));
  try {
    await say(w, pane, "register please");
    const entry = await waitFor(() => {
      try {
        return JSON.parse(readFileSync(join(w.stateDir, "commanders.json"), "utf8")).commanders[h];
      } catch {
        return undefined;
      }
    }, 120_000, `the ${h} commander's registration`).catch((err) => {
      const results = w.models.turns().filter(isToolResult).map((r) => r.lastUser);
      throw new Error(`${(err as Error).message}\n--- tool results ---\n${results.join("\n")}\n--- screen ---\n${w.tmux.screen(pane)}`);
    });
    await waitFor(() => w.models.turns().some((r) => isToolResult(r)), 120_000, "the tool's result");
    // The demo soldier would settle (unconfirmed: no commit) whenever a loaded machine gets to
    // it and wake the commander in the middle of a later test: the general strikes it now.
    const ids = readdirSync(join(w.stateDir, "tasks")).filter((n) => n.endsWith(".json")).map((n) => n.slice(0, -5));
    for (const id of ids) {
      const r = await vx(["strike", id, "--discard"], { cwd: w.project, env: w.env });
      if (r.code !== 0) throw new Error(`vx strike ${id} --discard: ${r.stderr}`);
    }
    return entry;
  } finally {
    w.models.respond(undefined);
  }
}

/** (a) Idle, its input empty: a wake reaches the model once, and the input line is empty after. */
export async function idleWake(w: World, pane: string, h: Hookless, id: string): Promise<number> {
  await settled(w, pane, h, `${h} idle with an empty input line`);
  const t0 = Date.now();
  taskWithWake(w, id);
  const req = await requestWith(w, wakeOf(id), t0, 120_000).catch((err) => {
    throw new Error(`${(err as Error).message}\n--- screen ---\n${w.tmux.screen(pane)}`);
  });
  const ms = req.at - t0;
  console.log(`compat: ${h} in plain tmux, idle wake file -> model request: ${ms} ms`);
  await settled(w, pane, h, `${h} idle again after the wake's turn`);
  expect1(w, wakeOf(id));
  return ms;
}

/** The conversation holds `text` exactly once (never typed twice), and the queue is empty. */
export function expect1(w: World, text: string): void {
  const last = newestWith(w, text);
  const n = last ? timesIn(last, text) : 0;
  if (n !== 1) throw new Error(`the conversation holds ${JSON.stringify(text)} ${n} times, not once`);
}

/**
 * (c) A person's unsent draft: the sentinel does not type (it logs the commander as holding unsent
 * text and keeps the wake); the draft stays, unsent; once the person clears it, the wake is typed.
 */
export async function draftWaits(w: World, pane: string, h: Hookless, id: string, clearKeys: string[]): Promise<void> {
  await settled(w, pane, h, `${h} idle with an empty input line`);
  const draft = "half a thought the person has not sent";
  w.tmux.type(pane, draft);
  await waitFor(() => (w.tmux.screen(pane).includes(draft) ? true : undefined), 30_000, "the draft on screen");
  const t0 = Date.now();
  taskWithWake(w, id);
  // The sentinel looked, found the draft, and put the wake back stamped as failing (CMDR-08).
  const stamped = () =>
    readdirSync(w.wakes).some((n) => {
      try {
        return n.includes(id) && readFileSync(join(w.wakes, n), "utf8").includes("delivery_failing_since");
      } catch {
        return false; // claimed (renamed) meanwhile
      }
    });
  await waitFor(() => (stamped() ? true : undefined), 60_000, "the sentinel to put the wake back").catch((err) => {
    throw new Error(`${(err as Error).message}\n--- wakes ---\n${readdirSync(w.wakes).join("\n")}\n--- screen ---\n${w.tmux.screen(pane)}`);
  });
  if (!w.tmux.screen(pane).includes(draft)) throw new Error(`the draft was overwritten:\n${w.tmux.screen(pane)}`);
  if (w.models.turns().some((r) => r.at >= t0 && (timesIn(r, wakeOf(id)) > 0 || timesIn(r, draft) > 0))) throw new Error("the wake or the draft reached the model while the draft was on screen");
  const cleared = Date.now();
  w.tmux.keys(pane, ...clearKeys);
  const req = await requestWith(w, wakeOf(id), cleared, 120_000).catch((err) => {
    throw new Error(`${(err as Error).message}\n--- wakes ---\n${readdirSync(w.wakes).join("\n")}\n--- screen ---\n${w.tmux.screen(pane)}`);
  });
  console.log(`compat: ${h} in plain tmux, draft cleared -> wake's model request: ${req.at - cleared} ms`);
  await settled(w, pane, h, `${h} idle again after the wake's turn`);
  expect1(w, wakeOf(id));
  if (w.models.turns().some((r) => timesIn(r, draft) > 0)) throw new Error("the person's draft reached the model");
}
