// The real Pi as commander, in tmux, against the mock chat-completions server, with the wake
// extension `vx init --commander pi` writes (CMDR-07): idle and mid-turn wakes, a first delivery
// that fails, and /reload while a wake is held.
import { afterAll, beforeAll, describe, test } from "bun:test";
import { taskWithWake } from "../await-kit";
import { waitFor } from "../helpers";
import { PI_ENV, seedPi } from "./pi-setup";
import { type World, requestWith, screenShows, wakeDuringBusyTurn, wakeOf, world } from "./world";

let w: World;
const PANE = "pi";

beforeAll(async () => {
  w = await world({ harness: "pi", commander: "pi", env: PI_ENV, prepare: (x) => seedPi(x.home, x.models.url) });
  w.tmux.start(PANE, [w.exe], w.project);
  // The extension's await is Pi's child once the session started.
  await waitFor(() => w.awaits().length === 1, 60_000, "Pi's await");
});
afterAll(async () => {
  await w?.close();
});

const wakeTurns = (id: string) => w.models.turns().filter((r) => r.lastUser.includes(wakeOf(id)));

describe("Pi commander", () => {
  test("a wake is delivered while Pi is idle", async () => {
    const t0 = Date.now();
    taskWithWake(w, "a1a1a1a1a1a1a1a1");
    const req = await requestWith(w, wakeOf("a1a1a1a1a1a1a1a1"), t0, 30_000);
    console.log(`compat: pi idle wake file -> model request: ${req.at - t0} ms`);
    await waitFor(() => w.awaits().length === 1, 30_000, "a fresh await after the wake");
  });

  test("a wake written mid-turn reaches the model right after the turn", async () => {
    await wakeDuringBusyTurn(w, PANE, "pi", "b2b2b2b2b2b2b2b2");
  });

  test("a wake whose first delivery fails (provider refusal, not retried by Pi) reaches the model later", async () => {
    const id = "c3c3c3c3c3c3c3c3";
    let refused = 0;
    w.models.respond((r) => (r.lastUser.includes(wakeOf(id)) && refused++ === 0 ? { status: 401 } : undefined));
    const t0 = Date.now();
    taskWithWake(w, id);
    await waitFor(() => wakeTurns(id).length >= 2, 40_000, "the wake sent again after the refusal");
    const [first, second] = wakeTurns(id);
    console.log(`compat: pi refused wake resent after ${second!.at - first!.at} ms (${second!.at - t0} ms after the wake file)`);
    w.models.respond(undefined);
  });

  test("/reload while a wake is held loses nothing", async () => {
    const id = "d4d4d4d4d4d4d4d4";
    // Every delivery is refused until the reload, so the wake is held by the extension when it happens.
    let reloaded = false;
    let answered = 0;
    w.models.respond((r) => {
      if (!r.lastUser.includes(wakeOf(id))) return undefined;
      if (!reloaded) return { status: 401 };
      answered++;
      return undefined;
    });
    taskWithWake(w, id);
    await waitFor(() => wakeTurns(id).length >= 1, 30_000, "the refused first delivery");
    w.tmux.type(PANE, "/reload");
    await screenShows(w, PANE, /\/reload/);
    w.tmux.keys(PANE, "Enter");
    reloaded = true;
    const t0 = Date.now();
    await waitFor(() => answered > 0, 40_000, "the new instance to deliver the held wake");
    console.log(`compat: pi wake held across /reload delivered ${Date.now() - t0} ms after it`);
    await waitFor(() => w.awaits().length === 1, 30_000, "one await after the reload");
    w.models.respond(undefined);
  });
});
