/**
 * The soldier-backend seam the sentinel's pass reads through: one survey per pass per backend
 * (herdr: one `agent list`, SEN-05; tmux: one `list-panes -a` per server its tasks live on, TMX-04),
 * then, per task, what the survey saw (a status in herdr's vocabulary) and how to read its pane. herdr's adapter only wraps
 * the calls the pass made before the seam existed, so its behaviour is unchanged.
 */
import type { Task } from "../state/schemas";
import type { ProjectPaths } from "../state/paths";
import { DELIVERING, readSoldierState } from "../state/soldier-state";
import { errorMessage } from "../errors";
import { COUNTS } from "../time";
import { type HerdrOps, findAgent, readTranscript, readVisible } from "./herdr-ops";
import type { AgentInfo } from "./herdr-types";
import type { BackendName } from "./names";
import { type TmuxClient, type TmuxPane, TmuxError, defaultSocket } from "./tmux";
import type { Sighting, Survey, SoldierBackend } from "./types";

export type { BackendName } from "./names";
export { backendOf } from "./names";
export type { Sighting, SoldierBackend, Survey } from "./types";

/** The herdr survey also hands its agent list on (hook-less commanders use it, CMDR-08/09). */
export type HerdrSurvey = Survey & { agents: AgentInfo[] };

/** What a pass hands each backend to build its survey: herdr's client, a tmux client per socket. */
export type SurveyDeps = { ops: HerdrOps; tmuxClient: (socket?: string) => TmuxClient };

type SurveyEntry = {
  /**
   * Its survey also lists the commanders' panes (`agents`), so a pass asks it whenever a hook-less
   * commander has wakes waiting, even with no soldier of its own to judge (CMDR-08).
   */
  readonly listsCommanders: boolean;
  backend(deps: SurveyDeps): SoldierBackend;
};

/** The survey side of the backend registry: exhaustive by type, so a backend without its survey does not compile. */
export const SURVEYS = {
  herdr: { listsCommanders: true, backend: (d) => herdrBackend(d.ops) },
  tmux: { listsCommanders: false, backend: (d) => tmuxBackend(d.tmuxClient, defaultSocket(d.ops.env)) },
} satisfies Record<BackendName, SurveyEntry>;

/** The backends whose surveys list commanders. */
export const COMMANDER_LISTING = (Object.keys(SURVEYS) as BackendName[]).filter((b) => SURVEYS[b].listsCommanders);

export function herdrSighting(ops: HerdrOps, agent: AgentInfo): Sighting {
  const target = agent.name ?? agent.pane_id;
  return { status: agent.agent_status, read: () => readTranscript(ops, target), readVisible: () => readVisible(ops, target) };
}

export function herdrSurvey(ops: HerdrOps, agents: AgentInfo[]): HerdrSurvey {
  return {
    agents,
    find(task) {
      const agent = findAgent(agents, task);
      return agent ? herdrSighting(ops, agent) : undefined;
    },
  };
}

export function herdrBackend(ops: HerdrOps): { name: "herdr"; survey(): Promise<HerdrSurvey> } {
  return { name: "herdr", survey: async () => herdrSurvey(ops, await ops.herdr.agentList()) };
}

// TMX-04: a plain shell in the foreground means the harness exited.
const SHELLS = new Set(["bash", "zsh", "sh", "dash", "fish", "ksh", "tcsh", "csh"]);

function readOrUndefined(p: Promise<string>): Promise<string | undefined> {
  return p.catch(() => undefined);
}

/**
 * TMX-05: the latest `vx report` as herdr's status. A running task without one is judged from its
 * pane as an idle one is (SEN-11: work in progress holds it, a question blocks it): the launch
 * writes a report before its prompt goes in, under the task's lock the pass passes over, so none
 * means a report that could not be written took the stale one away (CMD-REPORT-03, a full disk),
 * or a launch died before its prompt. A finished task goes back to running only on a `working`
 * report newer than its `updated_at` (the reopen rule), never on an older one.
 */
export function reportedStatus(task: Task, paths: ProjectPaths): { status: string; problem?: string } {
  let report: ReturnType<typeof readSoldierState>;
  try {
    report = readSoldierState(paths, task.id);
  } catch (err) {
    // A corrupt report says nothing, never success (HRD-06); the soldier's next report replaces it.
    return { status: "unknown", problem: errorMessage(err) };
  }
  if (!report) return { status: task.status === "running" ? "idle" : "unknown" };
  // A delivery that died before its Enter (the sentinel judges no task a command holds).
  if (report.source === DELIVERING) return { status: "idle" };
  if (task.status !== "running" && report.state === "working" && Date.parse(report.at) <= Date.parse(task.updated_at)) return { status: "idle" };
  return { status: report.state };
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
