/** The backend registry: everything outside this folder reaches a backend through here. */
import type { Deps } from "../deps";
import type { Env, ProjectPaths } from "../state/paths";
import type { Commander, Task } from "../state/schemas";
import type { Backend } from "./backend";
import { herdr } from "./herdr";
import { BACKEND_NAMES, type BackendName, DEFAULT_BACKEND, backendOf } from "./names";
import type { LifecycleRules, SoldierTerminal } from "./terminal-types";
import { tmux } from "./tmux";

export type { Backend, BackendDeps, CallerCtx, CallingCommander, CommanderCtx, CommanderSeat } from "./backend";

/** Typed as the interface, so no reader depends on one backend's own shape. */
export const BACKENDS: Readonly<Record<BackendName, Backend>> = { herdr, tmux };

/** In registry order: doctor's, and a new project's preference. */
export const ALL_BACKENDS: readonly Backend[] = BACKEND_NAMES.map((name) => BACKENDS[name]);

export function backendFor(task: Pick<Task, "backend">): Backend {
  return BACKENDS[backendOf(task)];
}

/** `where` is what the backend's check returned. */
export function backendTerminal(deps: Deps, paths: ProjectPaths, task: Pick<Task, "backend">, rules: LifecycleRules, where?: string): SoldierTerminal {
  return backendFor(task).terminal(deps, paths, rules, where);
}

/** The first backend present, else the default: a machine with only tmux must not get one every dispatch refuses. */
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
