import type { Task } from "../../state/schemas";
import type { TmuxClient } from "./client";
import { identify } from "./soldier";

/** The session a dead launch made (recorded or only intended), killed once verified as the task's. Throws when tmux cannot be asked. */
export async function killLeftSession(tmux: TmuxClient, task: Task): Promise<string[]> {
  if (!task.tmux_target && !task.tmux_pane_id) return [];
  const who = await identify(tmux, task, "kill");
  if (who.is !== "ours") return [];
  return (await tmux.killSession(who.sessionId)) ? [`${task.tmux_target ?? who.sessionId}`] : [];
}
