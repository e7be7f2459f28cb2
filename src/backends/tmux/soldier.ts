/**
 * Whether a task's tmux ids still name its soldier: tmux reuses a name once its session ends and ids once its server restarts,
 * so typing needs the session's `VX_TASK_ID` and a pane in the camp; a kill needs only the session.
 */
import { sep } from "node:path";
import { type TmuxClient, createTmuxClient } from "./client";
import type { Exec } from "../../exec";
import { realpathOr } from "../../state/paths";
import type { Task } from "../../state/schemas";

type TmuxIds = Pick<Task, "tmux_socket" | "tmux_session_id" | "tmux_pane_id" | "tmux_target">;

export function tmuxFor(exec: Exec, env: Record<string, string | undefined>, task: Pick<Task, "tmux_socket">): TmuxClient {
  return createTmuxClient({ exec, env, socket: task.tmux_socket });
}

/** The target of the soldier's pane: its id, else (an older task) its session's name. */
export function paneOf(task: TmuxIds): string | undefined {
  return task.tmux_pane_id ?? task.tmux_target;
}

/** `other`: a pane not verified as the task's (`inCamp`: its live process sits in the camp). */
type Identity = { is: "ours"; sessionId: string; paneId: string } | { is: "gone" } | { is: "other"; inCamp: boolean };

/** `type`: a paste or key goes in (the pane must be in the camp too); `kill`: the session is killed. */
type Purpose = "type" | "kill";

function within(path: string, camp: string): boolean {
  return path === camp || path.startsWith(camp.endsWith(sep) ? camp : camp + sep);
}

/**
 * `VX_TASK_ID` from the session's env (TMX-01), not `/proc`: tmux answers it everywhere, for the id just checked, even for a dead
 * pane. Typing also needs the pane in the camp; a kill does not (the harness may have cd'd out). Throws when tmux cannot be asked.
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

/** By the id just checked, never by a name another session may take meanwhile; `other` is left running. */
export async function killIfOurs(tmux: TmuxClient, task: TmuxIds & Pick<Task, "id" | "camp_path">): Promise<{ is: "killed" | "gone" } | { is: "other"; inCamp: boolean }> {
  const who = await identify(tmux, task, "kill");
  if (who.is !== "ours") return who;
  return { is: (await tmux.killSession(who.sessionId)) ? "killed" : "gone" };
}
