/** tmux's survey (TMX-04): one `list-panes -a` per server; status from the soldier's latest `vx report` (TMX-05). */
import type { Task } from "../../state/schemas";
import { COUNTS } from "../../time";
import { reportedStatus } from "../reported";
import type { SoldierBackend, Survey } from "../types";
import { type TmuxClient, type TmuxPane, TmuxError } from "./client";

// TMX-04: a plain shell in the foreground means the harness exited.
const SHELLS = new Set(["bash", "zsh", "sh", "dash", "fish", "ksh", "tcsh", "csh"]);

function readOrUndefined(p: Promise<string>): Promise<string | undefined> {
  return p.catch(() => undefined);
}

/** By ids tagged with the task (a restarted server reuses ids), so a later session taking the name is never it; older tasks by name. */
export function findPane(task: Task, panes: TmuxPane[]): TmuxPane | undefined {
  if (task.tmux_pane_id) {
    return panes.find((p) => p.paneId === task.tmux_pane_id && p.tag === task.id && (!task.tmux_session_id || p.sessionId === task.tmux_session_id));
  }
  return task.tmux_target ? panes.find((p) => p.session === task.tmux_target) : undefined;
}

export function tmuxSurvey(tmux: TmuxClient, panes: TmuxPane[]): Survey {
  return {
    find(task, paths) {
      const pane = findPane(task, panes);
      if (!pane || pane.dead || SHELLS.has(pane.command)) return undefined;
      // The pane's own id from here on, whatever the task recorded.
      const target = pane.paneId;
      return {
        ...reportedStatus(task, paths),
        read: () => readOrUndefined(tmux.capture(target, COUNTS.transcriptLines)),
        readVisible: () => readOrUndefined(tmux.capture(target)),
      };
    },
  };
}

/**
 * Per recorded socket; older tasks live on `home`. A failing server only makes its own tasks unreachable this pass (never gone);
 * tmux missing from PATH fails the whole survey.
 */
export function tmuxBackend(clientFor: (socket?: string) => TmuxClient, home?: string): SoldierBackend {
  const socketOf = (task: Task) => task.tmux_socket || home || "";
  return {
    name: "tmux",
    async survey(tasks = []) {
      const bySocket = new Map<string, Survey>();
      const servers = new Map<string, unknown>();
      for (const socket of new Set(tasks.map(socketOf))) {
        const tmux = clientFor(socket || undefined);
        try {
          bySocket.set(socket, tmuxSurvey(tmux, await tmux.listPanes()));
          servers.set(socket, undefined);
        } catch (err) {
          if (err instanceof TmuxError && err.code === "tmux_missing") throw err;
          servers.set(socket, err);
        }
      }
      return {
        servers,
        find: (task, paths) => bySocket.get(socketOf(task))?.find(task, paths),
        unreachable: (task) => servers.get(socketOf(task)),
      };
    },
  };
}
