/** herdr's agent vocabulary, onto which a tmux soldier's `vx report` states map (TMX-05), so the lifecycle rules read one. */

/** herdr's agent states. `idle` and `done` mean the same thing (HRD-06); `unknown` never means success. */
export const AGENT_STATUSES = ["idle", "working", "blocked", "done", "unknown"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** An agent as herdr's `agent` calls report it (herdr.md section 4), reduced to the fields vx uses. */
export type AgentInfo = {
  /** The agent's herdr name; absent for agents herdr detected on its own. */
  name?: string;
  /** Kind label, e.g. `claude`, `codex`. */
  agent?: string;
  /** A newer herdr's other value, or "" when absent, is kept so callers can apply SEN-09 (skip and log). */
  agent_status: AgentStatus | (string & {});
  pane_id: string;
  tab_id: string;
  workspace_id: string;
  /** Advances on each lifecycle change; herdr always sends it, 0 when absent. */
  state_change_seq: number;
  /** herdr omits the field when false; normalised to a boolean here. */
  interactive_ready: boolean;
  cwd?: string;
  agent_session?: { source?: string; agent?: string; kind?: string; value?: string };
};

/** `idle` or `done`: the turn is over and the agent is ready (HRD-06). */
export function isIdleStatus(status: string): boolean {
  return status === "idle" || status === "done";
}
