// The real GitHub Copilot CLI 1.0.102 as commander (HRN-02, CMDR-10) in a plain tmux pane, no herdr,
// against the mock model, with the sentinel running and the agentStop wake hook `vx init --commander
// copilot` writes. A wake while Copilot sits idle has no hook to carry it: the sentinel types it
// into the pane, only while the screen shows Copilot idle with an empty input line (the rules in
// src/harnesses/copilot.ts). A vx dispatch run by Copilot records it from its tmux pane; an idle
// wake reaches the model once; one during a turn waits for the turn's end (the agentStop drain or
// the typing, whichever comes first, once); a person's unsent draft is never sent or overwritten.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stopSentinels } from "../helpers";
import { typedSeat, wakeChecks } from "./commander-checks";
import { registerFromPane, startPlain, startSentinel } from "./commander-kit";
import { copilotCommanderWorld } from "./copilot-setup";
import { type World, screenShows } from "./world";

let w: World;
let sentinel: Bun.Subprocess | undefined;
const PANE = "cp";

beforeAll(async () => {
  w = await copilotCommanderWorld();
  sentinel = await startSentinel(w);
  // --allow-all: its shell tool runs vx without a permission dialog per command.
  startPlain(w, PANE, [w.exe, "--allow-all"]);
  // Keys typed while it is still loading are lost: the idle footer first.
  await screenShows(w, PANE, /· (\/ commands|@ files)\b/, 120_000);
});
afterAll(async () => {
  if (w) {
    await stopSentinels(w.home, sentinel ? [sentinel.pid] : []);
    await w.close();
  }
});

describe("Copilot CLI commander in a plain tmux pane", () => {
  test("a vx dispatch run by Copilot records it from its tmux pane, with its own pid", async () => {
    const entry = await registerFromPane(w, PANE, "copilot");
    console.log(`compat: copilot commander in plain tmux registered as ${JSON.stringify(entry)}`);
    expect(entry.herdr_pane_id).toBeUndefined();
    expect(entry.tmux_pane).toMatch(/^%\d+$/);
    expect(entry.pid).toBeGreaterThan(1);
  });

  wakeChecks(() => typedSeat(w, PANE, "copilot"), "copilot");
});
