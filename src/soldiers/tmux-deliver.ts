/**
 * What `vx prompt` and `vx decide` do to a tmux soldier (TMX-05/06): find it in one
 * `list-panes -a`, refuse while its harness reports a dialog, record `working`, then paste text
 * (plus Enter) or press an option's key. Outcomes use the herdr prompt's vocabulary so both
 * commands keep one flow; the quick-settle probe afterwards reads the reported state.
 */
import type { PromptOutcome } from "../backends/herdr-ops";
import { type Sighting, tmuxSurvey } from "../backends/soldiers";
import type { Deps } from "../deps";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { isoTime } from "../time";
import { probe, tmuxOf } from "./launch-tmux";
import { writeSoldierState } from "./states";

/** The soldier as tmux shows it now; undefined when its session, pane or harness is gone. */
export async function tmuxSighting(deps: Deps, paths: ProjectPaths, task: Task): Promise<Sighting | undefined> {
  const tmux = tmuxOf(deps);
  return tmuxSurvey(tmux, await tmux.listPanes()).find({ ...task, status: "running" }, paths);
}

/** Delivers `send` to the soldier unless it is gone or showing a dialog. */
async function deliver(deps: Deps, paths: ProjectPaths, task: Task, send: (session: string) => Promise<void>, dialogOk: boolean): Promise<PromptOutcome> {
  const soldier = await tmuxSighting(deps, paths, task);
  if (!soldier || !task.tmux_target) return { kind: "gone", code: "session_not_found" };
  if (soldier.status === "blocked" && !dialogOk) return { kind: "blocked" };
  writeSoldierState(paths, { task_id: task.id, state: "working", at: isoTime(deps.clock.now()), source: task.harness });
  await send(task.tmux_target);
  return { kind: "sent" };
}

/** A text prompt: one paste, then Enter. */
export function promptTmux(deps: Deps, paths: ProjectPaths, task: Task, text: string): Promise<PromptOutcome> {
  const tmux = tmuxOf(deps);
  return deliver(deps, paths, task, (s) => tmux.paste(s, text), false);
}

/** An option's key for the dialog the soldier is showing. */
export function pressTmux(deps: Deps, paths: ProjectPaths, task: Task, key: string): Promise<PromptOutcome> {
  const tmux = tmuxOf(deps);
  return deliver(deps, paths, task, (s) => tmux.sendKeys(s, [key]), true);
}

/** The screen, for reading a dialog's options. */
export async function tmuxScreen(deps: Deps, task: Task): Promise<string | undefined> {
  if (!task.tmux_target) return undefined;
  return tmuxOf(deps).capture(task.tmux_target).catch(() => undefined);
}

/** The probe after a delivery, as the tmux launch runs it. */
export function settleTmux(deps: Deps, paths: ProjectPaths, task: Task): Promise<Task> {
  return probe({ deps, paths, tmux: tmuxOf(deps) }, task);
}
