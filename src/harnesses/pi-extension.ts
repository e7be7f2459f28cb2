/** The Pi commander's wake extension (CMDR-07), programs/pi-wake.ts as written. */
import * as program from "./programs/pi-wake.ts" with { type: "text" };
import { wakeProgram } from "./wake-common";

export const PI_EXTENSION: string = wakeProgram(program);
