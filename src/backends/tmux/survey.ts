/**
 * tmux's survey for the sentinel's pass (TMX-04): one `list-panes -a` per server its tasks live
 * on, each task's soldier found by its pane's and session's ids; its status is the soldier's latest
 * `vx report` (TMX-05, `reported.ts`).
 */
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

/**
 * The task's pane among one server's: by the pane's own id and its session's, tagged with the
 * task's id (a server that restarted hands the same ids to other sessions), so a later session
 * that took the name of the task's ended one is never it; a task from before the ids were
 * recorded, by its session's name.
 */
export function findPane(task: Task, panes: TmuxPane[]): TmuxPane | undefined {
  if (task.tmux_pane_id) {
    return panes.find((p) => p.paneId === task.tmux_pane_id && p.tag === task.id && (!task.tmux_session_id || p.sessionId === task.tmux_session_id));
  }
  return task.tmux_target ? panes.find((p) => p.session === task.tmux_target) : undefined;
}

/** What one server's `list-panes -a` shows of its soldiers; `tmux` is a client for that server. */
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
 * TMX-04 with the server recorded per task: one `list-panes -a` per distinct socket of the tasks
 * the pass judges, each task looked for on its own server only. A task from before sockets were
 * recorded lives on the server a plain `tmux` picks, which is `home` (`defaultSocket` of the
 * pass's environment) when given, so it and newer tasks there share one call. `clientFor` makes
 * the client of a socket (undefined: tmux's own choice).
 *
 * One server that fails or times out must not hide the others' tasks: its error is kept per
 * socket and its tasks are unreachable for this pass (never taken for gone). tmux missing from
 * PATH is no server's fault, so it still fails the whole survey.
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
