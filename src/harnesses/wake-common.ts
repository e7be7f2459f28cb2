/**
 * What the wake programs vx writes into projects (the Pi extension and the OpenCode plugin) share.
 * They run inside the harness, never inside vx, so they cannot import from this repository: each
 * program's import of programs/wake-helpers.ts (finding vx, the camp check, spawning and stopping
 * the await) is written as that file's text, and the durations and exit code as vx's own values.
 */
import { EXIT } from "../exit-codes";
import { DURATIONS } from "../time";
import { fill, splice, textOf } from "./program-text";
import * as helpers from "./programs/wake-helpers.ts" with { type: "text" };

/** A wake program's text as vx writes it. */
export function wakeProgram(imported: object): string {
  const text = splice(textOf(imported), "wake-helpers", textOf(helpers));
  return fill(text, { WAKE_RETRY_MS: DURATIONS.wakeRetry, WAKE_RELISTEN_MS: DURATIONS.wakeRelisten, WAKE_DELIVERED: EXIT.wakeDelivered });
}
