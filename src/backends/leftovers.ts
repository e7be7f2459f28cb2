/**
 * What a launch that died part-way leaves behind (kill -9 of `vx dispatch` or `vx redispatch`):
 * a task still `pending` with no command working on it, and possibly a herdr tab or tmux session
 * it created but never recorded. The launch notes the tab's workspace and label (the session's
 * server socket and name) on the task before it creates it, so it can be found again: same
 * workspace and label with a pane in the task's camp; the named session on that server, verified
 * as the task's (`tmux-soldier.ts`).
 */
import { type HerdrOps, closeTab } from "./herdr-ops";
import { type BackendName, backendOf } from "./names";
import type { TmuxClient } from "./tmux";
import { errorMessage } from "../errors";
import { type ProjectPaths, realpathOr } from "../state/paths";
import type { Task } from "../state/schemas";
import { isTaskBusy } from "../state/tasks";
import { removeLaunchFiles } from "./soldier-env";
import { markFailed } from "../state/mark-failed";
import { identify } from "./tmux-soldier";

/** The reason a launch whose command died is failed with (TSK-07 note `... - marked failed.`). */
export const ABANDONED_REASON = "the command launching this soldier stopped before it finished";

/** A `pending` task no command is working on: its launch died, and nobody else will finish it. */
export function isAbandonedLaunch(paths: ProjectPaths, task: Task): boolean {
  return task.status === "pending" && !isTaskBusy(paths, task.id);
}

/** Tabs the task's launch created but never recorded; none when it recorded one or noted none. */
export async function unrecordedTabs(ops: HerdrOps, task: Task): Promise<string[]> {
  const { herdr_workspace_id: workspace, herdr_agent_name: label, camp_path: camp } = task;
  if (task.herdr_tab_id || task.herdr_pane_id || !workspace || !label || !camp) return [];
  const labelled = (await ops.herdr.tabList(workspace)).filter((t) => t.label === label).map((t) => t.tabId);
  if (labelled.length === 0) return [];
  const here = new Set([camp, realpathOr(camp)]);
  const panes = await ops.herdr.paneList(workspace);
  return labelled.filter((tab) => panes.some((p) => p.tabId === tab && p.cwd !== undefined && (here.has(p.cwd) || here.has(realpathOr(p.cwd)))));
}

/** Closes the tabs `unrecordedTabs` finds; returns the ones closed. Throws when herdr cannot be asked. */
export async function closeUnrecordedTabs(ops: HerdrOps, task: Task): Promise<string[]> {
  const closed: string[] = [];
  for (const tab of await unrecordedTabs(ops, task)) {
    if (await closeTab(ops, tab)) closed.push(tab);
  }
  return closed;
}

/**
 * Kills the session a tmux launch made for `task` (recorded, or only intended), when it is there
 * and verified as the task's; returns the session killed. Throws when tmux cannot be asked.
 */
export async function killLeftSession(tmux: TmuxClient, task: Task): Promise<string[]> {
  if (!task.tmux_target && !task.tmux_pane_id) return [];
  const who = await identify(tmux, task, "kill");
  if (who.is !== "ours") return [];
  return (await tmux.killSession(who.sessionId)) ? [`${task.tmux_target ?? who.sessionId}`] : [];
}

type LeftCtx = { ops: HerdrOps; tmux?: (socket?: string) => TmuxClient };

/** What each backend's launch may leave unrecorded: herdr tabs, a tmux session. */
const CLOSE_LEFT = {
  herdr: (ctx, task) => closeUnrecordedTabs(ctx.ops, task),
  tmux: async (ctx, task) => (ctx.tmux ? killLeftSession(ctx.tmux(task.tmux_socket), task) : []),
} satisfies Record<BackendName, (ctx: LeftCtx, task: Task) => Promise<string[]>>;

/**
 * Settles an abandoned launch as T3 on behalf of its dead command: its leftover tab closed (its
 * tmux session killed and its environment file removed), the task `failed` with its lease kept (so `vx strike` returns the camp).
 * A tab or session that could not be asked about is left to strike, which looks again. Returns
 * what it did, for the log.
 */
export async function failAbandonedLaunch(
  ctx: { paths: ProjectPaths; ops: HerdrOps; now: number; tmux?: (socket?: string) => TmuxClient },
  task: Task,
): Promise<{ failed: boolean; closed: string[]; error?: string }> {
  let closed: string[] = [];
  let error: string | undefined;
  try {
    closed = await CLOSE_LEFT[backendOf(task)](ctx, task);
  } catch (err) {
    error = errorMessage(err);
  }
  // Checked again: a strike may have taken the task while herdr was being asked.
  if (isTaskBusy(ctx.paths, task.id)) return { failed: false, closed, error };
  // The copy of the dispatcher's environment (API keys included) the dead launch wrote for its
  // pane's launcher, which never ran (or ran and removed it), and a herdr pane's launcher script. Removed while the task is still
  // pending, so no relaunch can have written a new one yet.
  removeLaunchFiles(ctx.paths, task.id);
  const saved = await markFailed(ctx.paths, task, ABANDONED_REASON, ctx.now);
  return { failed: saved.written, closed, error };
}
