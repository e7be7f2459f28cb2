/**
 * The soldier terminal the lifecycle commands use (dispatch, redispatch, prompt, decide, strike,
 * wait, resume): the backend's terminal from the registry (`backends/terminal.ts`) with the rules
 * that sit above it passed in: the quick-settle probe's judgement (`quick-settle.ts`) and the
 * dispatch text (`prompt-text.ts`). Every launch but a relaunch sets its camp up first (STA-10).
 */
import { backendTerminal } from "../backends";
import type { LifecycleRules, SoldierTerminal } from "../backends/terminal-types";
import { currentBranch } from "../camps/git";
import { campBranch } from "../camps/pool";
import { launchAfterSetup } from "../camps/setup";
import type { Deps } from "../deps";
import { pausePath, reportPath } from "../lifecycle/observe";
import { type ProjectPaths, realpathOr } from "../state/paths";
import type { Task } from "../state/schemas";
import { dispatchText } from "./prompt-text";
import { settleSeen } from "./quick-settle";

/** The rules every soldier terminal applies (exported for the tests that drive one launch). */
export const LIFECYCLE_RULES: LifecycleRules = {
  judge: settleSeen,
  firstPrompt: (paths, task) => dispatchText({ prompt: task.prompt, kind: task.kind, reportPath: reportPath(paths, task), pauseFile: pausePath(paths, task) }),
  campBranches: async (exec, task) => ({
    actual: (await currentBranch(realpathOr(task.camp_path ?? ""), exec).catch(() => undefined)) ?? "",
    expected: campBranch(task.id),
  }),
};

/** The terminal of `task`'s backend; `workspace` is the herdr workspace a launch creates its tab in. */
export function soldierTerminal(deps: Deps, paths: ProjectPaths, task: Pick<Task, "backend">, workspace?: string): SoldierTerminal {
  const terminal = backendTerminal(deps, paths, task, LIFECYCLE_RULES, workspace);
  return {
    ...terminal,
    launch: (pending, relaunch) => (relaunch ? terminal.launch(pending, relaunch) : launchAfterSetup(deps, paths, pending, (t) => terminal.launch(t))),
  };
}
