/**
 * The harness registry (HRN-01): one module per harness, keyed by name. `satisfies` makes it
 * exhaustive: a name in `names.ts` without its module, or a module missing a capability, does
 * not compile.
 */
import { claude } from "./claude";
import { codex } from "./codex";
import { copilot } from "./copilot";
import { demo } from "./demo";
import { gemini } from "./gemini";
import { COMMANDER_NAMES, DEFAULT_HARNESS, HARNESS_NAMES, type HarnessName, LISTED_HARNESS_NAMES } from "./names";
import { opencode } from "./opencode";
import { pi } from "./pi";
import type { Harness } from "./types";

export const HARNESSES = { claude, codex, pi, opencode, gemini, copilot, demo } as const satisfies Record<HarnessName, Harness>;

export { COMMANDER_NAMES, DEFAULT_HARNESS, HARNESS_NAMES, type HarnessName, LISTED_HARNESS_NAMES };

/** The harness module of `name` (a task's or profile's harness, the default when unset). */
export function harnessOf(name: HarnessName | undefined): Harness {
  return HARNESSES[name ?? DEFAULT_HARNESS];
}

/** Every harness, in `vx init`'s commander order. */
export function commanderHarnesses(): Harness[] {
  return COMMANDER_NAMES.map((n) => HARNESSES[n]);
}
