/**
 * The soldier-backend seam of the lifecycle commands: what dispatch, redispatch, prompt, decide,
 * strike and wait do to a soldier's terminal, whichever backend holds it. herdr and tmux are its
 * two implementations (`herdr-terminal.ts`, `tmux-terminal.ts`); the sentinel's pass reads through
 * the survey side of the same seam (`backends/soldiers.ts`).
 */
import type { PromptOutcome } from "./types";
import { type BackendName, type Sighting, backendOf } from "./soldiers";
import { launchAfterSetup } from "../camps/setup";
import type { Deps } from "../deps";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import type { LaunchResult, Relaunch } from "../soldiers/launch";
import { herdrTerminal } from "./herdr-terminal";
import { tmuxTerminal } from "./tmux-terminal";

export interface SoldierTerminal {
  readonly name: BackendName;
  /** How notes and refusals name the soldier's pane: "herdr pane", "tmux pane". */
  readonly pane: string;
  /**
   * CMD-DISPATCH-03 from "create the pane" on, for a `pending` task with its camp leased. Never
   * throws for backend failures. A `relaunch` (CMD-RESUME-01) skips camp setup: the camp is set up.
   */
  launch(pending: Task, relaunch?: Relaunch): Promise<LaunchResult>;
  /** A text prompt (the follow-up suffix already added). */
  prompt(task: Task, text: string): Promise<PromptOutcome>;
  /** An option's key for the dialog on the soldier's screen. */
  press(task: Task, key: string): Promise<PromptOutcome>;
  /** The visible screen, for a dialog's options; undefined when unreadable. */
  screen(task: Task): Promise<string | undefined>;
  /** The soldier as it is now; undefined when its pane is gone. Throws when the backend cannot be asked. */
  live(task: Task): Promise<Sighting | undefined>;
  /** The quick-settle probe after a delivery (CMD-DISPATCH-06); returns the task as saved. */
  settle(task: Task, outcome: PromptOutcome): Promise<Task>;
  /**
   * Closes the soldier's pane; one already gone counts as closed. Returns what it left running
   * instead (a tmux session by the task's name or ids that is not its soldier, and not in its
   * camp); throws, saying what, otherwise (a session in the camp that is not verified as its).
   */
  close(task: Task): Promise<string | void>;
  /** The live transcript's last `lines` lines; throws when it cannot be read. */
  transcript(task: Task, lines: number): Promise<string>;
}

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
