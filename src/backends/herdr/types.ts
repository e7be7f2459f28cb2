/** herdr's records (HRD-02, HRD-06), parsed leniently but strict about the fields vx relies on; and its error. */
import { MuxError } from "../../errors";
import type { AgentInfo } from "../agents";

/** `herdr status server --json`, for doctor. Fields are null while the server is down. */
export type ServerStatus = {
  status: string;
  running: boolean;
  version: string | null;
  protocol: number | null;
  compatible: boolean | null;
  restart_needed: boolean;
  socket?: string;
};

/** `code`: herdr's API error code, or vx's `usage`, `unparsable`, `herdr_missing`, `exec_timeout`, `failed`. */
export class HerdrError extends MuxError {
  /** herdr's own message (or the stderr text), without vx's prefix. */
  readonly detail: string;
  constructor(code: string, message: string, argv: string[], detail: string = message) {
    super(code, message, argv);
    this.name = "HerdrError";
    this.detail = detail;
  }
}

export function herdrCode(err: unknown): string | undefined {
  return err instanceof HerdrError ? err.code : undefined;
}

type Json = Record<string, unknown>;

export function isObject(x: unknown): x is Json {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function optString(x: unknown): string | undefined {
  return typeof x === "string" ? x : undefined;
}

function agentSession(x: unknown): AgentInfo["agent_session"] {
  if (!isObject(x)) return undefined;
  return { source: optString(x.source), agent: optString(x.agent), kind: optString(x.kind), value: optString(x.value) };
}

/** Reads one AgentInfo; undefined when a field vx relies on (the pane, tab and workspace ids) is missing. */
export function toAgentInfo(raw: unknown): AgentInfo | undefined {
  if (!isObject(raw)) return undefined;
  const { pane_id, tab_id, workspace_id } = raw;
  if (typeof pane_id !== "string" || typeof tab_id !== "string" || typeof workspace_id !== "string") return undefined;
  const info: AgentInfo = {
    agent_status: typeof raw.agent_status === "string" ? raw.agent_status : "",
    pane_id,
    tab_id,
    workspace_id,
    state_change_seq: typeof raw.state_change_seq === "number" ? raw.state_change_seq : 0,
    interactive_ready: raw.interactive_ready === true,
  };
  const name = optString(raw.name);
  if (name !== undefined) info.name = name;
  const kind = optString(raw.agent);
  if (kind !== undefined) info.agent = kind;
  const cwd = optString(raw.cwd);
  if (cwd !== undefined) info.cwd = cwd;
  const session = agentSession(raw.agent_session);
  if (session) info.agent_session = session;
  return info;
}

/** Reads `status server --json`; undefined when `running` is not a boolean. */
export function toServerStatus(raw: unknown): ServerStatus | undefined {
  if (!isObject(raw) || typeof raw.running !== "boolean") return undefined;
  const out: ServerStatus = {
    status: optString(raw.status) ?? (raw.running ? "running" : "not_running"),
    running: raw.running,
    version: optString(raw.version) ?? null,
    protocol: typeof raw.protocol === "number" ? raw.protocol : null,
    compatible: typeof raw.compatible === "boolean" ? raw.compatible : null,
    restart_needed: raw.restart_needed === true,
  };
  const socket = optString(raw.socket);
  if (socket !== undefined) out.socket = socket;
  return out;
}

/** The agent target for reads and keys: the live name, else its pane. */
export function agentTarget(agent: AgentInfo): string {
  return agent.name ?? agent.pane_id;
}
