/**
 * The interface both soldier terminals implement (`herdr-terminal.ts`, `tmux-terminal.ts`), apart
 * from the registry that picks one (`terminal.ts`), so the implementations never import it back.
 */
import type { Sighting } from "./types";
import type { BackendName } from "./names";
import type { PromptOutcome, Timing } from "./types";
import type { Exec } from "../exec";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";

/**
 * A relaunch by `vx resume` (CMD-RESUME-01): arguments put before the harness's own (its continue
 * flag) and the text submitted instead of the dispatch text.
 */
export type Relaunch = { args: string[]; text: string };

/** The task as saved at the end of a launch, and why it failed when it did. */
export type LaunchResult = { task: Task; error?: string };

/** A launch that stopped because another writer (a strike, the sentinel) changed the task first. */
export function changedUnderLaunch(task: Task): LaunchResult {
  return { task, error: `task ${task.id} changed while its soldier was being launched (it is now ${task.status}) - the launch stopped there; 'vx status' shows the task as it is now` };
}

/** What judging a sighting needs: the caller's clock (passed in), exec and the project. */
export type SettleCtx = Timing & { exec: Exec; paths: ProjectPaths };

/** The quick-settle probe's verdict: the status to record and the fields to save with it (none for running). */
export type Settlement = { status: "running" | "done" | "blocked"; fields: Partial<Task> };

/**
 * The lifecycle's rules a terminal applies but does not own (they sit above the registries, in
 * `soldiers/terminal.ts`): the quick-settle probe's judgement of what a soldier shows
 * (CMD-DISPATCH-06) and the text of its first prompt (CMD-DISPATCH-05), which names its report
 * and pause files and so is made once the launch has named the soldier.
 */
export type LifecycleRules = {
  judge(ctx: SettleCtx, task: Task, soldier: Sighting): Promise<Settlement>;
  firstPrompt(paths: ProjectPaths, task: Task): string;
  /** The branch `task`'s camp is on and the one it must be on (the isolation gate, TMX-03). */
  campBranches(exec: Exec, task: Task): Promise<{ actual: string; expected: string }>;
};

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
