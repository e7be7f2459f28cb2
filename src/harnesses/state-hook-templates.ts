/** The Pi and OpenCode state-hook programs, run inside the harness, with the shared reporter spliced in. */
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
