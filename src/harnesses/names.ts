/** The harness names alone, so the schemas and the drain path read them without loading a harness module. */
export const LISTED_HARNESS_NAMES = ["claude", "codex", "pi", "opencode", "gemini", "copilot"] as const;
export type ListedHarnessName = (typeof LISTED_HARNESS_NAMES)[number];
/** The listed harnesses and `vx demo`'s soldier, which is refused everywhere else and so never offered. */
export const HARNESS_NAMES = [...LISTED_HARNESS_NAMES, "demo"] as const;
export type HarnessName = (typeof HARNESS_NAMES)[number];

/** The soldier and commander harness when a project or a task names none. */
export const DEFAULT_HARNESS: ListedHarnessName = "claude";

/** In `vx init`'s commander order. */
export const COMMANDER_NAMES = ["claude", "pi", "opencode", "codex", "gemini", "copilot"] as const satisfies readonly ListedHarnessName[];
