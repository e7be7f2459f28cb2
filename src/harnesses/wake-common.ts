/** Wake programs run inside the harness and cannot import vx: their shared helpers are spliced in, vx's values filled in. */
import { EXIT } from "../exit-codes";
import { DURATIONS } from "../time";
import { fill, splice, textOf } from "./program-text";
import * as helpers from "./programs/wake-helpers.ts" with { type: "text" };

export function wakeProgram(imported: object): string {
  const text = splice(textOf(imported), "wake-helpers", textOf(helpers));
  return fill(text, { WAKE_RETRY_MS: DURATIONS.wakeRetry, WAKE_RELISTEN_MS: DURATIONS.wakeRelisten, WAKE_DELIVERED: EXIT.wakeDelivered });
}
