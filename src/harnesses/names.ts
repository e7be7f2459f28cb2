/**
 * The harness names, and nothing else: what flags, task files and config accept. Kept apart from
 * the registry (`index.ts`) so the schemas and the drain path read the names without loading any
 * harness module; the registry is typed against this list, so a name here without its module does
 * not compile.
 */
export const HARNESS_NAMES = ["claude", "codex", "pi", "opencode", "gemini"] as const;
export type HarnessName = (typeof HARNESS_NAMES)[number];

/** The soldier and commander harness when a project or a task names none. */
export const DEFAULT_HARNESS: HarnessName = "claude";

/** The same names in the order `vx init` offers them as the commander. */
export const COMMANDER_NAMES = ["claude", "pi", "opencode", "codex", "gemini"] as const satisfies readonly HarnessName[];
