/**
 * The tmux implementation of the lifecycle seam (TMX-01..06): the launch of `launch-tmux.ts`; a
 * prompt is one paste plus Enter and an option one key, both refused while the harness reports a
 * dialog (text) and preceded by a `working` report; the probe reads the reported state; close is
 * `kill-session`; reads are `capture-pane`.
 */
import type { PromptOutcome } from "../backends/herdr-ops";
import { type Sighting, tmuxSurvey } from "../backends/soldiers";
import type { Deps } from "../deps";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { isoTime } from "../time";
import { launchTmuxSoldier, probe, soldierHooks, tmuxOf } from "./launch-tmux";
import { warnTo, writeSoldierState } from "./states";
import type { SoldierTerminal } from "./terminal";

export function tmuxTerminal(deps: Deps, paths: ProjectPaths): SoldierTerminal {
  const tmux = tmuxOf(deps);
  const live = async (task: Task): Promise<Sighting | undefined> =>
    tmuxSurvey(tmux, await tmux.listPanes()).find({ ...task, status: "running" }, paths);

  /** Delivers `send` to the soldier unless it is gone or (for text) showing a dialog. */
  async function deliver(task: Task, send: (session: string) => Promise<void>, dialogOk: boolean): Promise<PromptOutcome> {
    const soldier = await live(task);
    if (!soldier || !task.tmux_target) return { kind: "gone", code: "session_not_found" };
    if (soldier.status === "blocked" && !dialogOk) return { kind: "blocked" };
    writeSoldierState(paths, { task_id: task.id, state: "working", at: isoTime(deps.clock.now()), source: task.harness }, warnTo(deps.stderr));
    await send(task.tmux_target);
    return { kind: "sent" };
  }

  return {
    name: "tmux",
    pane: "tmux pane",
    launch: (pending) => launchTmuxSoldier({ deps, paths, tmux, hooks: soldierHooks(deps, paths, pending) }, pending),
    prompt: (task, text) => deliver(task, (s) => tmux.paste(s, text), false),
    press: (task, key) => deliver(task, (s) => tmux.sendKeys(s, [key]), true),
    screen: async (task) => (task.tmux_target ? tmux.capture(task.tmux_target).catch(() => undefined) : undefined),
    live,
    settle: (task) => probe({ deps, paths, tmux }, task),
    async close(task) {
      if (!task.tmux_target) return;
      try {
        await tmux.killSession(task.tmux_target);
      } catch (err) {
        throw new Error(`could not close the soldier's tmux session ${task.tmux_target}: ${(err as Error).message}`);
      }
    },
    async transcript(task, lines) {
      if (!task.tmux_target) throw new Error("no tmux session recorded");
      return tmux.capture(task.tmux_target, lines);
    },
  };
}
