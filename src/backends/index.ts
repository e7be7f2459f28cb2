/**
 * The terminal backend registry: one `Backend` per name (`backend.ts`), each in its own folder.
 * Exhaustive by type, so a name in `names.ts` without its backend does not compile. Everything
 * outside this folder reaches a backend through here, by the task's or the project's backend.
 */
import type { Deps } from "../deps";
import type { Env, ProjectPaths } from "../state/paths";
import type { Commander, Task } from "../state/schemas";
import type { Backend } from "./backend";
import { herdr } from "./herdr";
import { BACKEND_NAMES, type BackendName, DEFAULT_BACKEND, backendOf } from "./names";
import type { LifecycleRules, SoldierTerminal } from "./terminal-types";
import { tmux } from "./tmux";

export type { Backend, BackendDeps, CommanderCtx, CommanderSeat } from "./backend";

/** The table: typed as the interface, so what reads it never depends on one backend's own shape. */
export const BACKENDS: Readonly<Record<BackendName, Backend>> = { herdr, tmux };

/** Every backend, in registry order (the order doctor lists them and a new project prefers them). */
export const ALL_BACKENDS: readonly Backend[] = BACKEND_NAMES.map((name) => BACKENDS[name]);

/** The backend holding `task`'s soldier. */
export function backendFor(task: Pick<Task, "backend">): Backend {
  return BACKENDS[backendOf(task)];
}

/** The terminal of `task`'s backend, applying `rules`; `where` is what the backend's check returned. */
export function backendTerminal(deps: Deps, paths: ProjectPaths, task: Pick<Task, "backend">, rules: LifecycleRules, where?: string): SoldierTerminal {
  return backendFor(task).terminal(deps, paths, rules, where);
}

/**
 * The backend a new project gets when the person names none: the first present here (herdr when
 * vx runs in a herdr pane or herdr is installed, else tmux when that is: a machine with only tmux
 * must not get a default every dispatch refuses), else the default, which doctor reports missing.
 */
export function installedBackend(env: Env, onPath: (program: string) => boolean): BackendName {
  return ALL_BACKENDS.find((b) => b.present(env, onPath))?.name ?? DEFAULT_BACKEND;
}

/** The backends whose surveys list commanders (CMDR-08). */
export const COMMANDER_LISTING: readonly BackendName[] = ALL_BACKENDS.filter((b) => b.survey.listsCommanders).map((b) => b.name);

/** Where a registered commander's entry says it runs, by the first backend that records one; "" when none does. */
export function registeredPane(entry: Commander): string {
  for (const b of ALL_BACKENDS) {
    const pane = b.commanderPane(entry);
    if (pane) return pane;
  }
  return "";
}
