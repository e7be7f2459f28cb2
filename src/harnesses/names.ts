/**
 * The harness names, and nothing else: what flags, task files and config accept. Kept apart from
 * the registry (`index.ts`) so the schemas and the drain path read the names without loading any
 * harness module; the registry is typed against this list, so a name here without its module does
 * not compile.
 */
export const LISTED_HARNESS_NAMES = ["claude", "codex", "pi", "opencode", "gemini", "copilot"] as const;
export type ListedHarnessName = (typeof LISTED_HARNESS_NAMES)[number];
/**
 * Every harness a task may run: the listed ones (what help, completions, `vx init`, config and
 * profiles offer and accept) and `vx demo`'s scripted soldier, which is refused everywhere else
 * and so never offered.
 */
export const HARNESS_NAMES = [...LISTED_HARNESS_NAMES, "demo"] as const;
export type HarnessName = (typeof HARNESS_NAMES)[number];

/** The soldier and commander harness when a project or a task names none. */
export const DEFAULT_HARNESS: ListedHarnessName = "claude";

/** The same names in the order `vx init` offers them as the commander. */
export const COMMANDER_NAMES = ["claude", "pi", "opencode", "codex", "gemini", "copilot"] as const satisfies readonly ListedHarnessName[];
