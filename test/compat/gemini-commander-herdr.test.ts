// The real Gemini CLI 0.61.0 as commander (HRN-02, CMDR-08) in a real herdr 0.8.2 pane, against the
// mock Gemini API, with the sentinel running. The person starts it in the workspace's root pane
// and trusts the project at its folder-trust dialog (which herdr reports `idle`). Gemini CLI has
// no hook that can wake an idle session, so the sentinel types each wake into its pane through
// herdr, only while herdr reports it idle and its screen shows an empty input line: a vx dispatch
// run by Gemini records its herdr pane; a wake while it sits idle reaches the model once, as one
// message; one during a turn waits for the turn's end; a person's unsent draft is never sent or
// overwritten.
import { expect } from "bun:test";
import { commanderSuite } from "./commander-seats";

commanderSuite("gemini", "herdr", "Gemini CLI commander in a real herdr pane", {
  firstTurn: true,
  registered: (entry, seat) => {
    expect(entry.herdr_pane_id).toBe(seat.pane);
    expect(entry.tmux_pane).toBeUndefined();
  },
});
