/**
 * What a tmux launch that died part-way leaves behind: the session it made (recorded, or only
 * intended: the launch saves its server and name first), verified as the task's before the kill.
 */
import type { Task } from "../../state/schemas";
import type { TmuxClient } from "./client";
import { identify } from "./soldier";

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
