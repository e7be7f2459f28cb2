/**
 * A commander's wake checks on the world's terminal (`w.term`: a plain tmux pane or a real herdr
 * pane), against its mock model: idle (the wake reaches the model once, as one message), busy
 * (after the running turn, once), and a person's unsent draft (never sent or overwritten). Each
 * takes the commander's own settle: its turn over and its input empty.
 */
import { test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { reasonFor, taskWithWake } from "../await-kit";
import { waitFor } from "../helpers";
import { type Hookless, settled, where } from "./commander-kit";
import type { LoggedRequest } from "./mock-models";
import { type World, requestWith, say, screenShows, wakeDuringBusyTurn, wakeOf } from "./world";

/** Waits until the commander's turn is over and its input is empty; `what` names the moment. */
export type Settle = (what: string) => Promise<void>;

/**
 * A commander as the checks see it, once `beforeAll` started it: how it settles, whether its wakes
 * are typed into its box (a draft then makes them wait), and the keys that clear a draft.
 */
export type Seat = { w: World; pane: string; settle: Settle; typed: boolean; clearKeys: string[] };

/** How many times `text` is in a request's whole conversation (each delivery is one user message). */
export function timesIn(r: LoggedRequest, text: string): number {
  return JSON.stringify(r.body).split(text).length - 1;
}

/** The newest model request whose conversation holds `text`. */
function newestWith(w: World, text: string): LoggedRequest | undefined {
  return w.models.turns().findLast((r) => timesIn(r, text) > 0);
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
 * (c) for a typed commander, a person's unsent draft: the sentinel does not type (it logs the
 * commander as holding unsent text and keeps the wake); the draft stays, unsent; once the person
 * clears it, the wake is typed.
 */
export async function draftWaits(w: World, pane: string, label: string, id: string, settle: Settle, clearKeys: string[]): Promise<void> {
  await settle("idle with an empty input line");
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
  console.log(`compat: ${label} ${where(w)}, draft cleared -> wake's model request: ${req.at - cleared} ms`);
  await settle("idle again after the wake's turn");
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

/**
 * A commander's three wake checks, as tests of the enclosing describe: idle, busy, and a person's
 * draft, which waits in the box until cleared for a typed commander and stays there, unsent, beside
 * the woken turn for the others. `seat` gives the commander once `beforeAll` made it.
 */
export function wakeChecks(seat: () => Seat, label: string): void {
  test("idle: a wake reaches the model once, as one message, and the input is empty after", async () => {
    const { w, pane, settle } = seat();
    await wakeWhileIdle(w, pane, label, "a1a1a1a1a1a1a1a1", settle);
  });

  test("busy: a wake that arrives during a turn reaches the model after that turn, once", async () => {
    const { w, pane, settle } = seat();
    await wakeDuringBusyTurn(w, pane, label, "b2b2b2b2b2b2b2b2");
    await settle("idle after the wake's turn");
    expect1(w, wakeOf("b2b2b2b2b2b2b2b2"));
  });

  test("a person's unsent draft is never sent or overwritten", async () => {
    const { w, pane, settle, typed, clearKeys } = seat();
    await (typed ? draftWaits : draftStays)(w, pane, label, "c3c3c3c3c3c3c3c3", settle, clearKeys);
  });
}

/** A typed commander (Gemini CLI, Copilot CLI) in `pane`, settled by the sentinel's screen rules; ctrl-u clears its draft. */
export function typedSeat(w: World, pane: string, h: Hookless): Seat {
  return { w, pane, settle: (what) => settled(w, pane, h, `${h} ${what}`), typed: true, clearKeys: ["C-u"] };
}

/** A first turn ends normally (its answer shows), and the commander settles after it. */
export async function firstTurn(seat: Seat, label: string): Promise<void> {
  const { w, pane } = seat;
  w.models.respond((r) => (r.lastUser.includes(`hello ${label}`) ? { text: "hello person" } : undefined));
  try {
    await say(w, pane, `hello ${label}`);
    await screenShows(w, pane, /hello person/, 60_000);
    await seat.settle("idle after its first turn");
  } finally {
    w.models.respond(undefined);
  }
}
