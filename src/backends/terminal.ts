/**
 * The soldier-backend seam of the lifecycle commands: what dispatch, redispatch, prompt, decide,
 * strike and wait do to a soldier's terminal, whichever backend holds it. herdr and tmux are its
 * two implementations (`herdr-terminal.ts`, `tmux-terminal.ts`); the sentinel's pass reads through
 * the survey side of the same seam (`backends/soldiers.ts`).
 */
import { type BackendName, backendOf } from "./soldiers";
import type { SoldierTerminal } from "./terminal-types";
import { launchAfterSetup } from "../camps/setup";
import type { Deps } from "../deps";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { herdrTerminal } from "./herdr-terminal";
import { tmuxTerminal } from "./tmux-terminal";

export type { SoldierTerminal } from "./terminal-types";

/** One terminal per backend name; `workspace` is the herdr workspace a launch creates its tab in. */
type TerminalFactory = (deps: Deps, paths: ProjectPaths, workspace?: string) => SoldierTerminal;

/** The terminal registry: exhaustive by type, so a backend name without its terminal does not compile. */
const TERMINALS = { herdr: herdrTerminal, tmux: (deps, paths) => tmuxTerminal(deps, paths) } satisfies Record<BackendName, TerminalFactory>;

/**
 * The terminal of `task`'s backend; `workspace` is the herdr workspace a launch creates its tab
 * in. Every launch (dispatch, redispatch) sets its camp up first (STA-10), whichever backend.
 */
export function soldierTerminal(deps: Deps, paths: ProjectPaths, task: Pick<Task, "backend">, workspace?: string): SoldierTerminal {
  const terminal = TERMINALS[backendOf(task)](deps, paths, workspace);
  return {
    ...terminal,
    launch: (pending, relaunch) => (relaunch ? terminal.launch(pending, relaunch) : launchAfterSetup(deps, paths, pending, (t) => terminal.launch(t))),
  };
}
