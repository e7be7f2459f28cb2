/** The harness registry (HRN-01): `satisfies` makes a missing module or capability a compile error. */
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

export function harnessOf(name: HarnessName | undefined): Harness {
  return HARNESSES[name ?? DEFAULT_HARNESS];
}

export function commanderHarnesses(): Harness[] {
  return COMMANDER_NAMES.map((n) => HARNESSES[n]);
}
