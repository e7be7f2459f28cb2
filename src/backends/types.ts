/** The backend-neutral types of the soldier-terminal seam; the clock is always the caller's. */
import type { AgentInfo } from "./agents";
import type { Env } from "../state/paths";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import type { Clock } from "../time";
import type { BackendName } from "./names";

/** The clock to wait on and the env that sets VX_TIME_SCALE. */
export type Timing = { clock: Clock; env: Env };

/** How a prompt ended (HRD-05). Failures other than these are thrown. */
export type PromptOutcome =
  /** The wait ended with the agent in a settled status (idle, done or blocked). */
  | { kind: "settled"; agent: AgentInfo }
  /** The wait ran out while the agent was still working: normal for a quick-settle probe. */
  | { kind: "timeout" }
  /** Delivered without waiting. */
  | { kind: "sent"; agent?: AgentInfo }
  /** The pane or its agent is gone. */
  | { kind: "gone"; code: string }
  /** A dialog is showing and nothing was sent. */
  | { kind: "blocked" };

export type Sighting = {
  /** herdr's vocabulary: `working`, `blocked`, `idle`, `done`, `unknown` (or something new). */
  status: string;
  /** The transcript (HRD-07 / TMX-06: the last 500 lines); undefined when unreadable. */
  read(): Promise<string | undefined>;
  readVisible(): Promise<string | undefined>;
  /** Why `status` says nothing (a corrupt `vx report` file), for the sentinel's log. */
  problem?: string;
};

export interface Survey {
  /** The task's soldier, or undefined when it is not found (SEN-06, TMX-04). */
  find(task: Task, paths: ProjectPaths): Sighting | undefined;
  /** Why the soldier could not be looked for (its tmux server did not answer): skipped, never taken as not found. */
  unreachable?(task: Task): unknown;
  /** Per server asked (tmux: its socket), the error it gave, or undefined; for the pass's log. */
  servers?: Map<string, unknown>;
  /** Every agent the backend lists, commanders included (herdr's `agent list`, CMDR-08/09). */
  agents?: AgentInfo[];
}

export interface SoldierBackend {
  readonly name: BackendName;
  /** A pass's status call (tmux: one per server); throws when the backend cannot be asked at all. */
  survey(tasks?: Task[]): Promise<Survey>;
}

/** A harness's folder-trust dialog, on either backend (Claude Code's and Codex's wording). */
export const TRUST_RE = /trust this folder/i;
