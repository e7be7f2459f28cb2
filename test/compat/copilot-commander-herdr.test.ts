// The real GitHub Copilot CLI 1.0.102 as commander (HRN-02, CMDR-08) in a real herdr 0.8.2 pane,
// against the mock model, with the sentinel running and the agentStop wake hook `vx init
// --commander copilot` writes. The person starts it in the workspace's root pane and trusts the
// project for the session at its folder-trust dialog. No hook fires while Copilot sits idle, so
// the sentinel types such a wake into its pane through herdr, only while herdr reports it idle and
// its screen shows an empty input line: a vx dispatch run by Copilot records its herdr pane; a wake
// while it sits idle reaches the model once, as one message; one during a turn waits for the
// turn's end; a person's unsent draft is never sent or overwritten.
import { expect } from "bun:test";
import { commanderSuite } from "./commander-seats";

commanderSuite("copilot", "herdr", "Copilot CLI commander in a real herdr pane", {
  firstTurn: true,
  registered: (entry, seat) => {
    expect(entry.herdr_pane_id).toBe(seat.pane);
    expect(entry.tmux_pane).toBeUndefined();
  },
});
