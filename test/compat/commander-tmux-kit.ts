/**
 * A commander against its mock model, with the sentinel running, on the world's terminal (a plain
 * tmux pane, CMDR-10, or a real herdr pane: `w.term`). A hook-less one (Gemini CLI, Copilot CLI)
 * registers itself by running `vx dispatch` from its shell tool, then the sentinel types wakes into
 * its pane only while its screen shows it idle with an empty input line. The checks read the
 * model's requests (what it was sent) and the pane's screen by the harness module's own rules
 * (`screenState`); the idle and draft checks also take any commander's own settle.
 */
import { test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { screenState } from "../../src/backends/commander-screen";
import { reasonFor, taskWithWake } from "../await-kit";
import { VX_BIN, vx, waitFor } from "../helpers";
import type { LoggedRequest } from "./mock-models";
import { isToolResult } from "./soldier-kit";
import type { HarnessName } from "./harnesses";
import { conversationOf, shellCall } from "./tmux-fleet";
import { type World, requestWith, say, screenShows, wakeDuringBusyTurn, wakeOf } from "./world";

export type Hookless = "gemini" | "copilot";

/** Waits until the commander's turn is over and its input is empty; `what` names the moment. */
export type Settle = (what: string) => Promise<void>;

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
    await waitFor(() => {
      const s = state(w, pane, h);
      return s.idle && s.inputEmpty ? true : undefined;
    }, timeoutMs, what);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- screen ---\n${w.term.screen(pane)}`);
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
    const entry = await waitFor(() => {
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
    }, 120_000, `the ${h} commander's registration`).catch((err) => {
      const results = w.models.turns().filter(isToolResult).map((r) => r.lastUser);
      throw new Error(`${(err as Error).message}\n--- tool results ---\n${results.join("\n")}\n--- screen ---\n${w.term.screen(pane)}`);
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
export function idleWake(w: World, pane: string, h: Hookless, id: string): Promise<number> {
  return wakeWhileIdle(w, pane, h, id, (what) => settled(w, pane, h, `${h} ${what}`));
}

/**
 * Any commander, settled: a wake file reaches the model as one request holding the whole wake
 * (never cut into lines sent one by one), once; returns the wake file -> model request time.
 */
export async function wakeWhileIdle(w: World, pane: string, label: string, id: string, settle: Settle): Promise<number> {
  await settle("idle with an empty input line");
  const t0 = Date.now();
  taskWithWake(w, id);
  const req = await requestWith(w, wakeOf(id), t0, 120_000).catch((err) => {
    throw new Error(`${(err as Error).message}\n--- screen ---\n${w.term.screen(pane)}`);
  });
  const ms = req.at - t0;
  console.log(`compat: ${label} ${where(w)}, idle wake file -> model request: ${ms} ms`);
  expectWhole(req, id);
  await settle("idle again after the wake's turn");
  expect1(w, wakeOf(id));
  return ms;
}

/** The request's last user message holds the wake's every line: it went in as one message. */
export function expectWhole(r: LoggedRequest, id: string): void {
  const lines = reasonFor(id).trim().split("\n");
  const missing = lines.filter((l) => !r.lastUser.includes(l.trim()));
  if (missing.length > 0) throw new Error(`the wake's request lacks ${JSON.stringify(missing)} (it went in cut apart): ${JSON.stringify(r.lastUser)}`);
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
  w.term.type(pane, draft);
  await waitFor(() => (w.term.screen(pane).includes(draft) ? true : undefined), 30_000, "the draft on screen");
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
    throw new Error(`${(err as Error).message}\n--- wakes ---\n${readdirSync(w.wakes).join("\n")}\n--- screen ---\n${w.term.screen(pane)}`);
  });
  if (!w.term.screen(pane).includes(draft)) throw new Error(`the draft was overwritten:\n${w.term.screen(pane)}`);
  if (w.models.turns().some((r) => r.at >= t0 && (timesIn(r, wakeOf(id)) > 0 || timesIn(r, draft) > 0))) throw new Error("the wake or the draft reached the model while the draft was on screen");
  const cleared = Date.now();
  w.term.keys(pane, ...clearKeys);
  const req = await requestWith(w, wakeOf(id), cleared, 120_000).catch((err) => {
    throw new Error(`${(err as Error).message}\n--- wakes ---\n${readdirSync(w.wakes).join("\n")}\n--- screen ---\n${w.term.screen(pane)}`);
  });
  console.log(`compat: ${h} ${where(w)}, draft cleared -> wake's model request: ${req.at - cleared} ms`);
  await settled(w, pane, h, `${h} idle again after the wake's turn`);
  expect1(w, wakeOf(id));
  if (w.models.turns().some((r) => timesIn(r, draft) > 0)) throw new Error("the person's draft reached the model");
}

/**
 * (c) for a commander whose wake does not go through its input box (a hook's turn, Codex's queue):
 * a person's unsent draft stays in the box, unsent, while the wake reaches the model once; `settle`
 * then waits for the woken turn's end, and `clearKeys` clear the draft.
 */
export async function draftStays(w: World, pane: string, label: string, id: string, settle: Settle, clearKeys: string[]): Promise<void> {
  await settle("idle with an empty input line");
  const draft = "half a thought the person has not sent";
  const answer = `noted ${id}`;
  w.term.type(pane, draft);
  await waitFor(() => (w.term.screen(pane).includes(draft) ? true : undefined), 30_000, "the draft on screen");
  w.models.respond((r) => (r.lastUser.includes(wakeOf(id)) ? { text: answer } : undefined));
  try {
    const t0 = Date.now();
    taskWithWake(w, id);
    const req = await requestWith(w, wakeOf(id), t0, 120_000).catch((err) => {
      throw new Error(`${(err as Error).message}\n--- screen ---\n${w.term.screen(pane)}`);
    });
    console.log(`compat: ${label} ${where(w)}, a draft in its input box, wake file -> model request: ${req.at - t0} ms`);
    expectWhole(req, id);
    // The woken turn's answer on screen: that turn is over, and the draft must still wait in the box.
    await waitFor(() => (w.term.screen(pane).includes(answer) ? true : undefined), 60_000, "the woken turn's answer on screen").catch((err) => {
      throw new Error(`${(err as Error).message}\n--- screen ---\n${w.term.screen(pane)}`);
    });
  } finally {
    w.models.respond(undefined);
  }
  const screen = w.term.screen(pane);
  if (!screen.includes(draft)) throw new Error(`the draft was taken out of the input box:\n${screen}`);
  if (w.models.turns().some((r) => timesIn(r, draft) > 0)) throw new Error("the person's draft reached the model");
  w.term.keys(pane, ...clearKeys);
  await settle("idle again, the draft cleared");
  expect1(w, wakeOf(id));
  if (w.models.turns().some((r) => timesIn(r, draft) > 0)) throw new Error("the person's draft reached the model");
}

/** A first turn ends normally (its answer shows), and the screen reads idle with an empty input line. */
export async function firstTurn(w: World, pane: string, h: Hookless): Promise<void> {
  w.models.respond((r) => (r.lastUser.includes(`hello ${h}`) ? { text: "hello person" } : undefined));
  try {
    await say(w, pane, `hello ${h}`);
    await screenShows(w, pane, /hello person/, 60_000);
    await settled(w, pane, h, `${h} idle after its first turn`);
  } finally {
    w.models.respond(undefined);
  }
}

/**
 * The typed commander's three wake checks, as tests of the enclosing describe: idle (once, as one
 * message, the input line empty after), busy (after the running turn, once), a person's draft
 * (never sent or overwritten: the wake waits until it is cleared). `seat` gives the world and pane
 * once `beforeAll` made them.
 */
export function typedWakeChecks(seat: () => { w: World; pane: string }, h: Hookless): void {
  test("idle: a wake is typed once, reaches the model as one message, and leaves the input line empty", async () => {
    const { w, pane } = seat();
    await idleWake(w, pane, h, "a1a1a1a1a1a1a1a1");
  });

  test("busy: a wake that arrives during a turn reaches the model after that turn, once", async () => {
    const { w, pane } = seat();
    await wakeDuringBusyTurn(w, pane, h, "b2b2b2b2b2b2b2b2");
    await settled(w, pane, h, `${h} idle after the wake's turn`);
    expect1(w, wakeOf("b2b2b2b2b2b2b2b2"));
  });

  test("a person's unsent draft is never sent or overwritten: the wake waits until it is cleared", async () => {
    const { w, pane } = seat();
    await draftWaits(w, pane, h, "c3c3c3c3c3c3c3c3", ["C-u"]);
  });
}
