/** A terminal backend; its folder alone reads and writes its task fields (a new backend's go in `backend_state`). */
import type { Check } from "../check";
import type { Deps } from "../deps";
import type { Exec } from "../exec";
import type { HarnessName } from "../harnesses";
import type { Delivery } from "../harnesses/types";
import type { Env, ProjectPaths } from "../state/paths";
import type { Awaiter, Commander, Pool, Task } from "../state/schemas";
import type { Clock } from "../time";
import type { AgentInfo } from "./agents";
import type { BackendName } from "./names";
import type { LifecycleRules, SoldierTerminal } from "./terminal-types";
import type { SoldierBackend } from "./types";

/** What a backend builds its clients from: the caller's exec, clock and environment. */
export type BackendDeps = { exec: Exec; clock: Clock; env: Env };

/** What finding a commander needs: the pass's agent list, when a backend's survey made one. */
export type CommanderCtx = BackendDeps & { agents?: readonly AgentInfo[] };

/** What finding the calling commander needs: the state root, the command's project, the live awaits' records. */
export type CallerCtx = { root: string; project: string; awaiters(): Promise<Awaiter[]> };

/** The commander running this vx, found in one of this backend's panes (CMDR-01..03, CMDR-10). */
export type CallingCommander = {
  /** Its pane, which tasks record as `commander_pane` when `marksTasks`. */
  pane: string;
  /** The kind label its registry entry is keyed by (`claude`, `codex`, ...); undefined when unknown. */
  harness?: string;
  /** The project whose queue it drains; undefined when unknown. */
  project?: string;
  /** This backend's fields of its `commanders.json` entry. */
  entry: Partial<Commander>;
  /** Tasks record it as the commander to wake (CMDR-01), and dispatch warns when it works elsewhere (CMDR-04). */
  marksTasks: boolean;
};

/** A hook-less commander found live in one of this backend's panes (CMDR-08..10). */
export interface CommanderSeat {
  /** How doctor names where it runs. */
  readonly pane: string;
  /** How the sentinel's log says a wake typed into it went (" via herdr agent prompt"). */
  readonly via: string;
  /** Its screen shows it idle with an empty input line (and its backend agrees). */
  idle(): Promise<boolean>;
  /** Types a wake into it, once. */
  type(text: string): Promise<Delivery>;
}

export interface Backend {
  readonly name: BackendName;
  /** The program every call to this backend runs, found on PATH (the sentinel's PATH check, SEN-23). */
  readonly program: string;
  /** How notes and refusals name the soldier's pane. */
  readonly pane: string;
  /** What `vx strike` reports it closed. */
  readonly closed: string;
  /** What a launch that died may have left behind (the sentinel's log). */
  readonly leftover: string;
  /** The note of a soldier that disappeared (SEN-18, TMX-06). */
  readonly goneNote: string;
  /** A new project that names no backend gets the first one (in registry order) present here. */
  present(env: Env, onPath: (program: string) => boolean): boolean;
  /** CMD-DISPATCH-02, before anything is written: throws when it cannot take a soldier from here; returns where a launch goes. */
  check(env: Env): string | undefined;
  /** AWT-01: a commander's hook here has wakes to deliver (`configured`: the project names this backend). */
  commanderHere(env: Env, configured: () => boolean): boolean;

  /** The task records where its soldier is (the reopen pass needs that, SEN-20). */
  recorded(task: Task): boolean;
  /** The task records a pane or tab that a relaunch closes first. */
  hasPane(task: Task): boolean;
  /** The soldier's name, which its report and pause files carry; undefined before it has one. */
  soldierName(task: Task): string | undefined;
  /** The soldier's pane as a refusal names it (a session, an agent), when recorded. */
  paneName(task: Task): string | undefined;
  /** CMD-DISPATCH-04's line on where the soldier runs; undefined when there is nothing to say. */
  launchLine(task: Task): string | undefined;
  /** Saved on the pending task before its pane exists, so a launch that dies can be cleaned up. */
  intent(task: Pick<Task, "id" | "prompt">, where: string | undefined): Partial<Task>;
  /** What a relaunch saves first: the old pane's fields cleared, the new intent; `sameServer` for a resume. */
  relaunch(task: Task, where: string | undefined, sameServer: boolean): Partial<Task>;

  /** The lifecycle seam's terminal for this backend's soldiers. */
  terminal(deps: Deps, paths: ProjectPaths, rules: LifecycleRules, where?: string): SoldierTerminal;
  /** `listsCommanders`: it lists commanders' panes too, so a pass asks it for a hook-less commander's wakes (CMDR-08). */
  readonly survey: { readonly listsCommanders: boolean; backend(deps: BackendDeps): SoldierBackend };
  /** Doctor's lines once its program is found (`required`: the project's backend), DOC-04. */
  doctor(deps: Deps, exe: string, required: boolean): Promise<Check[]>;
  /** Doctor: soldiers still running in a camp the pool took back, each with how to stop it. */
  strays(pool: Pool, tasks: Task[], deps: Pick<BackendDeps, "exec" | "env">): Promise<string[]>;
  /** Closes what a launch that died left unrecorded (a tab, a session); returns what it closed. */
  closeLeft(deps: BackendDeps, task: Task): Promise<string[]>;
  /** The commander running this vx, when it runs in one of this backend's panes. */
  callingCommander(deps: Deps, ctx: CallerCtx): Promise<CallingCommander | undefined>;
  /** The pane a registered commander's entry records on this backend, if it records one (the board shows it). */
  commanderPane(entry: Commander): string | undefined;
  /** The commander side: a registered hook-less commander live in one of its panes, else undefined. */
  findCommander(ctx: CommanderCtx, harness: HarnessName, entry: Commander): Promise<CommanderSeat | undefined>;
}
