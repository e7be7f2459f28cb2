/** The soldier terminals' interface, apart from the registry, so the implementations never import it back. */
import type { Sighting } from "./types";
import type { BackendName } from "./names";
import type { PromptOutcome, Timing } from "./types";
import type { Exec } from "../exec";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";

/** `vx resume` (CMD-RESUME-01): args before the harness's own, and the text sent instead of the dispatch text. */
export type Relaunch = { args: string[]; text: string };

export type LaunchResult = { task: Task; error?: string };

/** A launch that stopped because another writer (a strike, the sentinel) changed the task first. */
export function changedUnderLaunch(task: Task): LaunchResult {
  return { task, error: `task ${task.id} changed while its soldier was being launched (it is now ${task.status}) - the launch stopped there; 'vx status' shows the task as it is now` };
}

export type SettleCtx = Timing & { exec: Exec; paths: ProjectPaths };

/** The quick-settle probe's verdict: the status to record and the fields to save with it (none for running). */
export type Settlement = { status: "running" | "done" | "blocked"; fields: Partial<Task> };

/** Rules a terminal applies but does not own: the probe's judgement (CMD-DISPATCH-06), the first prompt (CMD-DISPATCH-05). */
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
  /** CMD-DISPATCH-03 from "create the pane" on; never throws for backend failures; a `relaunch` (CMD-RESUME-01) skips camp setup. */
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
  /** Gone counts as closed. Returns a session by its name that is not its soldier, left running; throws for an unverified one in the camp. */
  close(task: Task): Promise<string | void>;
  /** The live transcript's last `lines` lines; throws when it cannot be read. */
  transcript(task: Task, lines: number): Promise<string>;
}
