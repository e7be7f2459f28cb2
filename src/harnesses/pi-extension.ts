/**
 * The Pi commander's wake extension (CMDR-07), written to `.pi/extensions/vexillum-wake.ts`.
 * Pi's `sendUserMessage` is fire-and-forget: a text Pi fails to process (no API key, a provider
 * refusal) raises no error the extension can catch. So a wake counts as accepted only once its user
 * message entered a turn and the model answered it; until then it is held and sent again every 5 s
 * while Pi is idle. Held wakes live on globalThis, which survives the extension being rebuilt on
 * /reload, /new, /resume and /fork, so a wake whose await exits during that hand-over is kept for
 * the next instance. Observed against Pi 0.73.1 (the compat suite runs it). The program itself is
 * programs/pi-wake.ts.
 */
import * as program from "./programs/pi-wake.ts" with { type: "text" };
import { wakeProgram } from "./wake-common";

export const PI_EXTENSION: string = wakeProgram(program);
