// The `[vexillum]` notes, compared with the specification's own words (not with our constants).
import { expect, test } from "bun:test";
import { NOTE_AGENT_GONE } from "../../src/backends/herdr";
import { NOTE_TMUX_GONE } from "../../src/backends/tmux";
import * as notes from "../../src/lifecycle/notes";
import { composeOutput } from "../../src/state/tasks";

test.each([
  [NOTE_AGENT_GONE, "[vexillum] this soldier's herdr agent disappeared (pane closed, or herdr restarted) - marked interrupted. Any work it already committed is still in its camp."],
  [NOTE_TMUX_GONE, "[vexillum] this soldier's tmux pane disappeared (session closed, harness exited, or tmux restarted) - marked interrupted. Any work it already committed is still in its camp."],
  [
    notes.noteStillRunning("a spinner line with a timer"),
    "[vexillum] this soldier's pane still showed work in progress (a spinner line with a timer) 30 minutes after its turn went idle - stopped waiting and marked unconfirmed, not done; its report may not exist. Check its camp/pane before assuming either way.",
  ],
  [
    notes.noteUnstable("done"),
    "[vexillum] the soldier's pane was still changing when it was marked done, so its final report may be missing above. Read the pane, or ask the soldier for the report with 'vx prompt'.",
  ],
  [
    notes.noteUnreadable("blocked"),
    "[vexillum] the soldier's pane could not be read when it was marked blocked, so its final report may be missing above. Read the pane, or ask the soldier for the report with 'vx prompt'.",
  ],
  [
    notes.NOTE_IDLE_NO_PAUSE,
    "[vexillum] this soldier's turn went idle with no completion signal (no report for a scout, no new commit for a mission) and no declared pause - marked unconfirmed, not done. Check its camp/pane before assuming either way.",
  ],
  [
    notes.notePauseGone("2026-11-30T11:00:00Z"),
    "[vexillum] this soldier had declared a pause (first seen 2026-11-30T11:00:00Z), but its pause file is gone: it woke, removed its pause file and ended its turn without delivering. Its pane is idle with no completion signal (no report for a scout, no new commit for a mission) - marked unconfirmed, not done. Check its camp/pane before assuming either way.",
  ],
  [
    notes.NOTE_PAUSE_STALE,
    "[vexillum] this soldier's declared pause is older than 30 minutes and no longer trusted, and its pane is idle with no completion signal (no report for a scout, no new commit for a mission) - marked unconfirmed, not done. Check its camp/pane before assuming either way.",
  ],
])("%#", (got, want) => {
  expect(got).toBe(want);
});

test("output: transcript, then each note after a blank line; unreadable keeps the previous output", () => {
  expect(composeOutput("pane text\n\n", "old", ["[vexillum] a", "[vexillum] b"])).toBe("pane text\n\n[vexillum] a\n\n[vexillum] b");
  expect(composeOutput(undefined, "old", ["[vexillum] a"])).toBe("old\n\n[vexillum] a");
  expect(composeOutput(undefined, undefined, ["[vexillum] a"])).toBe("[vexillum] a");
});
