/**
 * Which tmux soldier a task names, and whether what is there now is still it (issue 15). A task
 * records its server's socket and its session's and pane's own ids; every tmux call for it goes
 * to that socket and targets those ids (a task from before they were recorded: its session name
 * on whichever server tmux picks). tmux reuses a name as soon as its session ends and its ids once
 * its server restarts, so before vx types into a pane, presses a key in it or kills its session,
 * it checks the session carries the task's `VX_TASK_ID` and the pane is in the task's camp.
 */
import { sep } from "node:path";
import { type TmuxClient, createTmuxClient } from "../backends/tmux";
import type { Exec } from "../exec";
import { realpathOr } from "../state/paths";
import type { Task } from "../state/schemas";

type TmuxIds = Pick<Task, "tmux_socket" | "tmux_session_id" | "tmux_pane_id" | "tmux_target">;

/** A client for the server `task`'s soldier lives on. */
export function tmuxFor(exec: Exec, env: Record<string, string | undefined>, task: Pick<Task, "tmux_socket">): TmuxClient {
  return createTmuxClient({ exec, env, socket: task.tmux_socket });
}

/** The target of the soldier's pane: its id, else (an older task) its session's name. */
export function paneOf(task: TmuxIds): string | undefined {
  return task.tmux_pane_id ?? task.tmux_target;
}

/** `ours` (with the session's and pane's ids): the task's soldier; `gone`: nothing there; `other`: a pane that is not this task's. */
export type Identity = { is: "ours"; sessionId: string; paneId: string } | { is: "gone" | "other" };

function within(path: string, camp: string): boolean {
  return path === camp || path.startsWith(camp.endsWith(sep) ? camp : camp + sep);
}

/**
 * Whether the pane `task` names is its soldier. `VX_TASK_ID` is read from the session's
 * environment (where `new-session -e` puts it, TMX-01) rather than from the pane process's
 * `/proc/<pid>/environ`: tmux answers it on the task's own socket on every platform (macOS has no
 * `/proc`), for the session id just checked rather than for a pid read a moment earlier, and also
 * for a pane whose harness already exited (kept by remain-on-exit), so a launch's leftover can
 * still be told apart and killed. The pane's current path must be the camp or below it; a dead
 * pane has no current process, so its session's `VX_TASK_ID` alone decides. Throws when tmux
 * cannot be asked: that is no answer either way.
 */
export async function identify(tmux: TmuxClient, task: TmuxIds & Pick<Task, "id" | "camp_path">): Promise<Identity> {
  const target = paneOf(task);
  if (!target) return { is: "gone" };
  const info = await tmux.paneInfo(target);
  if (!info) return { is: "gone" };
  const ours = { is: "ours", sessionId: info.sessionId, paneId: info.paneId } as const;
  if (task.tmux_session_id && info.sessionId !== task.tmux_session_id) return { is: "other" };
  if ((await tmux.sessionEnv(info.sessionId, "VX_TASK_ID")) !== task.id) return { is: "other" };
  if (info.dead) return ours;
  const camp = task.camp_path ? realpathOr(task.camp_path) : undefined;
  return camp !== undefined && within(realpathOr(info.path), camp) ? ours : { is: "other" };
}

/**
 * Kills the task's soldier's session when it is the task's (by the id just checked, never by a
 * name another session may take meanwhile). True when it was killed now; false when it was gone
 * or is not this task's.
 */
export async function killIfOurs(tmux: TmuxClient, task: TmuxIds & Pick<Task, "id" | "camp_path">): Promise<boolean> {
  const who = await identify(tmux, task);
  return who.is === "ours" ? tmux.killSession(who.sessionId) : false;
}
