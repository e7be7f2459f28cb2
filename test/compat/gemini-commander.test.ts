// The real Gemini CLI 0.61.0 as commander (HRN-02, CMDR-10) in a plain tmux pane, no herdr, against
// the mock Gemini API, with the sentinel running. Gemini CLI has no hook that can wake an idle
// session, so the sentinel types each wake into its pane, only while its screen shows it idle with
// an empty input line (the rules in src/harnesses/gemini.ts): a vx dispatch run by Gemini records
// it from its tmux pane; a wake while it sits idle reaches the model once; one that arrives during
// a turn waits for the turn's end; a person's unsent draft is never sent or overwritten.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { git, stopSentinels } from "../helpers";
import { firstTurn, typedSeat, wakeChecks } from "./commander-checks";
import { registerFromPane, startPlain, startSentinel } from "./commander-kit";
import { GEMINI_MODEL, geminiEnv, seedGemini } from "./gemini-setup";
import { type World, screenShows, world } from "./world";

let w: World;
let sentinel: Bun.Subprocess | undefined;
const PANE = "gm";

beforeAll(async () => {
  w = await world({ harness: "gemini", commander: "gemini", prepare: (x) => (seedGemini(x.home), geminiEnv(x.models.url)) });
  git(w.project, "add", "-A");
  git(w.project, "commit", "-q", "-m", "vx init");
  sentinel = await startSentinel(w);
  // YOLO: the commander's shell tool runs vx without a confirmation per command (its input line
  // is then marked `*`); the project trusted for this session.
  startPlain(w, PANE, [w.exe, "--skip-trust", "--approval-mode", "yolo", "--model", GEMINI_MODEL]);
  await screenShows(w, PANE, /Type your message or @path\/to\/file/, 120_000);
});
afterAll(async () => {
  if (w) {
    await stopSentinels(w.home, sentinel ? [sentinel.pid] : []);
    await w.close();
  }
});

describe("Gemini CLI commander in a plain tmux pane", () => {
  test("a first turn ends normally, and it is read idle with an empty input line", async () => {
    await firstTurn(typedSeat(w, PANE, "gemini"), "gemini");
  });

  test("a vx dispatch run by Gemini records it from its tmux pane, with its own pid", async () => {
    const entry = await registerFromPane(w, PANE, "gemini");
    console.log(`compat: gemini commander in plain tmux registered as ${JSON.stringify(entry)}`);
    expect(entry.herdr_pane_id).toBeUndefined();
    expect(entry.tmux_pane).toMatch(/^%\d+$/);
    expect(entry.pid).toBeGreaterThan(1);
  });

  wakeChecks(() => typedSeat(w, PANE, "gemini"), "gemini");
});
