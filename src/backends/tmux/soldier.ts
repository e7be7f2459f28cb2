/**
 * Which tmux soldier a task names, and whether what is there now is still it (issue 15). A task
 * records its server's socket and its session's and pane's own ids; every tmux call for it goes
 * to that socket and targets those ids (a task from before they were recorded: its session name
 * on whichever server tmux picks). tmux reuses a name as soon as its session ends and its ids once
 * its server restarts, so before vx types into a pane or presses a key in it, it checks the
 * session carries the task's `VX_TASK_ID` and the pane is in the task's camp. A kill needs only
 * the session: the harness may have cd'd out of the camp, and it must still die with its strike.
 */
import { sep } from "node:path";
import { type TmuxClient, createTmuxClient } from "./client";
import type { Exec } from "../../exec";
import { realpathOr } from "../../state/paths";
import type { Task } from "../../state/schemas";

type TmuxIds = Pick<Task, "tmux_socket" | "tmux_session_id" | "tmux_pane_id" | "tmux_target">;

/** A client for the server `task`'s soldier lives on. */
export function tmuxFor(exec: Exec, env: Record<string, string | undefined>, task: Pick<Task, "tmux_socket">): TmuxClient {
  return createTmuxClient({ exec, env, socket: task.tmux_socket });
}

/** The target of the soldier's pane: its id, else (an older task) its session's name. */
export function paneOf(task: TmuxIds): string | undefined {
  return task.tmux_pane_id ?? task.tmux_target;
}

/**
 * `ours` (with the session's and pane's ids): the task's soldier; `gone`: nothing there; `other`:
 * a pane not verified as this task's (`inCamp`: its live process sits in the task's camp).
 */
type Identity = { is: "ours"; sessionId: string; paneId: string } | { is: "gone" } | { is: "other"; inCamp: boolean };

/** `type`: a paste or key goes in (the pane must be in the camp too); `kill`: the session is killed. */
type Purpose = "type" | "kill";

function within(path: string, camp: string): boolean {
  return path === camp || path.startsWith(camp.endsWith(sep) ? camp : camp + sep);
}

/**
 * Whether the pane `task` names is its soldier. `VX_TASK_ID` is read from the session's
 * environment (where `new-session -e` puts it, TMX-01) rather than from the pane process's
 * `/proc/<pid>/environ`: tmux answers it on the task's own socket on every platform (macOS has no
 * `/proc`), for the session id just checked rather than for a pid read a moment earlier, and also
 * for a pane whose harness already exited (kept by remain-on-exit), so a launch's leftover can
 * still be told apart and killed. To type into it, the pane's current path must also be the camp
 * or below it (a dead pane has no current process, so its session's `VX_TASK_ID` alone decides).
 * To kill it, the session's recorded id and `VX_TASK_ID` are proof enough: tmux never hands out an
 * id twice while its server runs and a restarted server's sessions lack the task's id, while the
 * harness's foreground process may well have cd'd out of the camp. Throws when tmux cannot be
 * asked: that is no answer either way.
 */
export async function identify(tmux: TmuxClient, task: TmuxIds & Pick<Task, "id" | "camp_path">, purpose: Purpose = "type"): Promise<Identity> {
  const target = paneOf(task);
  if (!target) return { is: "gone" };
  const info = await tmux.paneInfo(target);
  if (!info) return { is: "gone" };
  const ours = { is: "ours", sessionId: info.sessionId, paneId: info.paneId } as const;
  const camp = task.camp_path ? realpathOr(task.camp_path) : undefined;
  const inCamp = !info.dead && camp !== undefined && within(realpathOr(info.path), camp);
  if (task.tmux_session_id && info.sessionId !== task.tmux_session_id) return { is: "other", inCamp };
  if ((await tmux.sessionEnv(info.sessionId, "VX_TASK_ID")) !== task.id) return { is: "other", inCamp };
  if (info.dead || purpose === "kill") return ours;
  return inCamp ? ours : { is: "other", inCamp };
}

/**
 * Kills the task's soldier's session when it is the task's (by the id just checked, never by a
 * name another session may take meanwhile). `killed`: killed now; `gone`: nothing there (or it
 * ended meanwhile); `other`: a session not verified as this task's, left running.
 */
export async function killIfOurs(tmux: TmuxClient, task: TmuxIds & Pick<Task, "id" | "camp_path">): Promise<{ is: "killed" | "gone" } | { is: "other"; inCamp: boolean }> {
  const who = await identify(tmux, task, "kill");
  if (who.is !== "ours") return who;
  return { is: (await tmux.killSession(who.sessionId)) ? "killed" : "gone" };
}
