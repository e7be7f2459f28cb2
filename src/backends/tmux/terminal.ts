/** The tmux side of the lifecycle seam (TMX-01..06): a paste, key or kill goes only to a pane verified as the task's. */
import type { PromptOutcome } from "../types";
import { tmuxSurvey } from "./survey";
import type { Sighting } from "../types";
import type { Deps } from "../../deps";
import type { ProjectPaths } from "../../state/paths";
import type { Task } from "../../state/schemas";
import { isoTime } from "../../time";
import { launchTmuxOf, launchTmuxSoldier, pasteAndSubmit, probe, soldierHooks } from "./launch";
import { deliverUnderIntent, warnTo } from "../../state/soldier-state";
import type { LifecycleRules, SoldierTerminal } from "../terminal-types";
import { identify, killIfOurs, paneOf, tmuxFor } from "./soldier";

export function tmuxTerminal(deps: Deps, paths: ProjectPaths, rules: LifecycleRules): SoldierTerminal {
  const tmuxOfTask = (task: Task) => tmuxFor(deps.exec, deps.env, task);
  /** The soldier as the survey sees it, and only when its pane is verified as the task's. */
  const live = async (task: Task): Promise<{ soldier: Sighting; pane: string } | undefined> => {
    const tmux = tmuxOfTask(task);
    const soldier = tmuxSurvey(tmux, await tmux.listPanes()).find({ ...task, status: "running" }, paths);
    if (!soldier) return undefined;
    const who = await identify(tmux, task);
    return who.is === "ours" ? { soldier, pane: who.paneId } : undefined;
  };

  /** Delivers `send` to the soldier unless it is gone or (for text) showing a dialog. */
  async function deliver(task: Task, send: (pane: string) => Promise<void>, dialogOk: boolean): Promise<PromptOutcome> {
    const found = await live(task);
    if (!found) return { kind: "gone", code: "session_not_found" };
    if (found.soldier.status === "blocked" && !dialogOk) return { kind: "blocked" };
    const pane = found.pane;
    await deliverUnderIntent(paths, task.id, isoTime(deps.clock.now()), task.harness, () => send(pane), warnTo(deps.stderr));
    return { kind: "sent" };
  }

  return {
    name: "tmux",
    pane: "tmux pane",
    launch: (pending, relaunch) => launchTmuxSoldier({ deps, paths, tmux: launchTmuxOf(deps, pending), hooks: soldierHooks(deps, paths, pending), rules }, pending, relaunch),
    prompt: (task, text) => deliver(task, (pane) => pasteAndSubmit(deps, tmuxOfTask(task), pane, text, task.harness), false),
    press: (task, key) => deliver(task, (pane) => tmuxOfTask(task).sendKeys(pane, [key]), true),
    screen: async (task) => {
      const pane = paneOf(task);
      return pane
        ? tmuxOfTask(task)
            .capture(pane)
            .catch(() => undefined)
        : undefined;
    },
    live: async (task) => (await live(task))?.soldier,
    settle: (task) => probe({ deps, paths, tmux: tmuxOfTask(task), rules }, task),
    async close(task) {
      const name = task.tmux_target ?? paneOf(task) ?? "";
      let left: Awaited<ReturnType<typeof killIfOurs>>;
      try {
        left = await killIfOurs(tmuxOfTask(task), task);
      } catch (err) {
        throw new Error(`could not close the soldier's tmux session ${name}: ${(err as Error).message}`);
      }
      if (left.is !== "other") return;
      // Never killed unverified; in the camp it may still be the soldier, so the camp must not go back to the pool under it.
      if (left.inCamp) {
        throw new Error(`tmux session ${name} runs in the camp but is not verified as task ${task.id}'s soldier - close it yourself, then strike again`);
      }
      return `tmux session ${name} left running (not this task's)`;
    },
    async transcript(task, lines) {
      const pane = paneOf(task);
      if (!pane) throw new Error("no tmux session recorded");
      return tmuxOfTask(task).capture(pane, lines);
    },
  };
}
