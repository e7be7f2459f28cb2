/**
 * The two state-hook files that run inside a soldier's harness, not inside vx: the Pi extension
 * (programs/pi-state.ts) and the OpenCode plugin (programs/opencode-state.ts). Each imports the
 * shared reporter (programs/state-reporter.ts), which is written in its place, with vx's path,
 * the harness name and the report timeout filled in.
 *
 * In the OpenCode plugin, subagents run in child sessions with statuses of their own, so the state
 * is over every session this process saw: blocked while any permission or question waits, else
 * working while any session is busy (or retrying), else idle. session.status repeats "busy" on
 * every step; report() drops repeats, so vx runs only when the state changes.
 */
import { GUARDS } from "../time";
import { fill, splice, textOf } from "./program-text";
import * as opencodeState from "./programs/opencode-state.ts" with { type: "text" };
import * as piState from "./programs/pi-state.ts" with { type: "text" };
import * as reporter from "./programs/state-reporter.ts" with { type: "text" };

// vx's path goes in as a JSON string literal, never through a shell.
function stateProgram(imported: object, vx: string, harness: string): string {
  const text = splice(textOf(imported), "state-reporter", textOf(reporter));
  return fill(text, { VX: JSON.stringify(vx), HARNESS: JSON.stringify(harness), REPORT_CHILD_MS: GUARDS.reportChild });
}

export function piExtension(vx: string): string {
  return stateProgram(piState, vx, "pi");
}

export function opencodePlugin(vx: string): string {
  return stateProgram(opencodeState, vx, "opencode");
}
