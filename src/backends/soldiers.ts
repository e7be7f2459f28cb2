/**
 * The soldier-backend seam the sentinel's pass reads through: one survey call per pass per
 * backend (herdr: `agent list`, SEN-05; tmux: `list-panes -a`, TMX-04), then, per task, what the
 * survey saw (a status in herdr's vocabulary) and how to read its pane. herdr's adapter only wraps
 * the calls the pass made before the seam existed, so its behaviour is unchanged.
 */
import type { Task } from "../state/schemas";
import type { ProjectPaths } from "../state/paths";
import { readSoldierState } from "../soldiers/states";
import { errorMessage } from "../errors";
import { COUNTS } from "../time";
import { type HerdrOps, findAgent, readTranscript, readVisible } from "./herdr-ops";
import type { AgentInfo } from "./herdr-types";
import type { TmuxClient, TmuxPane } from "./tmux";

export type BackendName = "herdr" | "tmux";

/** One soldier as the pass's survey saw it. */
export type Sighting = {
  /** herdr's vocabulary: `working`, `blocked`, `idle`, `done`, `unknown` (or something new). */
  status: string;
  /** The transcript (HRD-07 / TMX-06: the last 500 lines); undefined when unreadable. */
  read(): Promise<string | undefined>;
  /** The visible screen, for dialogs. */
  readVisible(): Promise<string | undefined>;
  /** Why `status` says nothing (a corrupt `vx report` file), for the sentinel's log. */
  problem?: string;
};

export interface Survey {
  /** The task's soldier, or undefined when it is not found (SEN-06, TMX-04). */
  find(task: Task, paths: ProjectPaths): Sighting | undefined;
}

export interface SoldierBackend {
  readonly name: BackendName;
  /** The one status call of a pass. Throws when the backend cannot be asked at all. */
  survey(): Promise<Survey>;
}

export function backendOf(task: Task): BackendName {
  return task.backend ?? "herdr";
}

/** The herdr survey also hands its agent list on (hook-less commanders use it, CMDR-08/09). */
export type HerdrSurvey = Survey & { agents: AgentInfo[] };

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
 * TMX-05: the latest `vx report` as herdr's status. No report yet counts as working (the launch
 * writes one before the prompt goes in). A finished task goes back to running only on a
 * `working` report newer than its `updated_at` (the reopen rule), never on an older one.
 */
export function reportedStatus(task: Task, paths: ProjectPaths): { status: string; problem?: string } {
  let report: ReturnType<typeof readSoldierState>;
  try {
    report = readSoldierState(paths, task.id);
  } catch (err) {
    // A corrupt report says nothing, never success (HRD-06); the soldier's next report replaces it.
    return { status: "unknown", problem: errorMessage(err) };
  }
  if (!report) return { status: task.status === "running" ? "working" : "unknown" };
  if (task.status !== "running" && report.state === "working" && Date.parse(report.at) <= Date.parse(task.updated_at)) return { status: "idle" };
  return { status: report.state };
}

export function tmuxSurvey(tmux: TmuxClient, panes: TmuxPane[]): Survey {
  const bySession = new Map(panes.map((p) => [p.session, p]));
  return {
    find(task, paths) {
      const session = task.tmux_target;
      const pane = session ? bySession.get(session) : undefined;
      if (!session || !pane || pane.dead || SHELLS.has(pane.command)) return undefined;
      return {
        ...reportedStatus(task, paths),
        read: () => readOrUndefined(tmux.capture(session, COUNTS.transcriptLines)),
        readVisible: () => readOrUndefined(tmux.capture(session)),
      };
    },
  };
}

export function tmuxBackend(tmux: TmuxClient): SoldierBackend {
  return { name: "tmux", survey: async () => tmuxSurvey(tmux, await tmux.listPanes()) };
}
