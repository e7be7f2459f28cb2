/** The exact `[vexillum]` notes the sentinel appends (SEN-08/13/15/18, TMX-06); a disappearance is each backend's `goneNote`. */

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

// TSK-07's output composition is in state/tasks.ts: a failed launch writes one below this layer.
