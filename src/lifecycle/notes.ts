/** The exact `[vexillum]` notes the sentinel appends to a task's output (SEN-08/13/15/18, TMX-06). */
// A soldier that disappeared is told in its backend's words: each backend's `goneNote`.

export function noteStillRunning(evidence: string): string {
  return `[vexillum] this soldier's pane still showed work in progress (${evidence}) 30 minutes after its turn went idle - stopped waiting and marked unconfirmed, not done; its report may not exist. Check its camp/pane before assuming either way.`;
}

export function noteUnstable(status: string): string {
  return `[vexillum] the soldier's pane was still changing when it was marked ${status}, so its final report may be missing above. Read the pane, or ask the soldier for the report with 'vx prompt'.`;
}

export function noteUnreadable(status: string): string {
  return `[vexillum] the soldier's pane could not be read when it was marked ${status}, so its final report may be missing above. Read the pane, or ask the soldier for the report with 'vx prompt'.`;
}

export const NOTE_IDLE_NO_PAUSE =
  "[vexillum] this soldier's turn went idle with no completion signal (no report for a scout, no new commit for a mission) and no declared pause - marked unconfirmed, not done. Check its camp/pane before assuming either way.";

export function notePauseGone(pauseSeenAt: string): string {
  return `[vexillum] this soldier had declared a pause (first seen ${pauseSeenAt}), but its pause file is gone: it woke, removed its pause file and ended its turn without delivering. Its pane is idle with no completion signal (no report for a scout, no new commit for a mission) - marked unconfirmed, not done. Check its camp/pane before assuming either way.`;
}

export const NOTE_PAUSE_STALE =
  "[vexillum] this soldier's declared pause is older than 30 minutes and no longer trusted, and its pane is idle with no completion signal (no report for a scout, no new commit for a mission) - marked unconfirmed, not done. Check its camp/pane before assuming either way.";

// TSK-07's composition of the output with its notes is state/tasks.ts's (a failed launch writes one below this layer).
