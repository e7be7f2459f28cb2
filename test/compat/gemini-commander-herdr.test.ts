// The real Gemini CLI 0.61.0 as commander (HRN-02, CMDR-08) in a real herdr 0.8.2 pane, against the
// mock Gemini API, with the sentinel running. The person starts it in the workspace's root pane
// and trusts the project at its folder-trust dialog (which herdr reports `idle`). Gemini CLI has
// no hook that can wake an idle session, so the sentinel types each wake into its pane through
// herdr, only while herdr reports it idle and its screen shows an empty input line: a vx dispatch
// run by Gemini records its herdr pane; a wake while it sits idle reaches the model once, as one
// message; one during a turn waits for the turn's end; a person's unsent draft is never sent or
// overwritten.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DECISION_RE } from "../../src/harnesses/gemini";
import { git, stopSentinels } from "../helpers";
import { herdrWorld, startInPane } from "./commander-herdr-kit";
import { firstTurn, registerFromPane, startSentinel, typedWakeChecks } from "./commander-tmux-kit";
import { GEMINI_MODEL, geminiEnv, seedGemini } from "./gemini-setup";
import type { World } from "./world";

let w: World;
let sentinel: Bun.Subprocess | undefined;
let pane: string;

beforeAll(async () => {
  w = await herdrWorld({ harness: "gemini", commander: "gemini", prepare: (x) => (seedGemini(x.home), geminiEnv(x.models.url)) });
  git(w.project, "add", "-A");
  git(w.project, "commit", "-q", "-m", "vx init");
  sentinel = await startSentinel(w);
  // YOLO: the commander's shell tool runs vx without a confirmation per command.
  pane = await startInPane(w, `gemini --approval-mode yolo --model ${GEMINI_MODEL}`, /Type your message or @path\/to\/file/, [
    // Enter takes its first option, "Trust folder"; Gemini CLI then restarts.
    { name: "the folder-trust dialog", shows: /● 1\. Trust folder/, keys: ["Enter"] },
  ]);
});
afterAll(async () => {
  if (w) {
    await stopSentinels(w.home, sentinel ? [sentinel.pid] : []);
    await w.close();
  }
});

describe("Gemini CLI commander in a real herdr pane", () => {
  test("a first turn ends normally, and it is read idle with an empty input line", async () => {
    await firstTurn(w, pane, "gemini");
  });

  test("a vx dispatch run by Gemini records it with its herdr pane", async () => {
    // Restarted after the trust dialog, Gemini CLI sometimes drops `--approval-mode yolo` (docs/real-clients.md).
    const entry = await registerFromPane(w, pane, "gemini", DECISION_RE);
    console.log(`compat: gemini commander in a herdr pane registered as ${JSON.stringify(entry)}`);
    expect(entry.herdr_pane_id).toBe(pane);
    expect(entry.tmux_pane).toBeUndefined();
  });

  typedWakeChecks(() => ({ w, pane }), "gemini");
});
