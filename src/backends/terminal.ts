/**
 * The soldier-backend seam's registry: one terminal per backend (`herdr-terminal.ts`,
 * `tmux-terminal.ts`), picked by the task's backend. The lifecycle commands take theirs from
 * `soldiers/terminal.ts`, which passes in the rules that sit above this layer (the probe's
 * judgement, the first prompt's text) and sets the camp up before a launch; the sentinel's pass
 * reads through the survey side of the same seam (`backends/soldiers.ts`).
 */
import { type BackendName, backendOf } from "./soldiers";
import type { LifecycleRules, SoldierTerminal } from "./terminal-types";
import type { Deps } from "../deps";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { herdrTerminal } from "./herdr-terminal";
import { tmuxTerminal } from "./tmux-terminal";

export type { LifecycleRules, SoldierTerminal } from "./terminal-types";

/** One terminal per backend name; `workspace` is the herdr workspace a launch creates its tab in. */
type TerminalFactory = (deps: Deps, paths: ProjectPaths, rules: LifecycleRules, workspace?: string) => SoldierTerminal;

/** The terminal registry: exhaustive by type, so a backend name without its terminal does not compile. */
const TERMINALS = { herdr: herdrTerminal, tmux: (deps, paths, rules) => tmuxTerminal(deps, paths, rules) } satisfies Record<BackendName, TerminalFactory>;

/** The terminal of `task`'s backend, applying `rules`. */
export function backendTerminal(deps: Deps, paths: ProjectPaths, task: Pick<Task, "backend">, rules: LifecycleRules, workspace?: string): SoldierTerminal {
  return TERMINALS[backendOf(task)](deps, paths, rules, workspace);
}
