/**
 * Record shapes vx reads from herdr (SPEC HRD-02, HRD-06) and the typed error its calls raise.
 * Parsing is lenient about key order and extra fields, strict about the fields vx relies on.
 */
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

/**
 * A failed herdr call. `code` is herdr's API error code (`agent_pane_busy`, `timeout`, ...) or one of
 * vx's own: `usage` (exit 2 or non-JSON stderr), `unparsable` (stdout vx cannot read),
 * `herdr_missing` (not on PATH), `exec_timeout` (herdr did not exit in time), `failed` (crashed).
 */
export class HerdrError extends MuxError {
  /** herdr's own message (or the stderr text), without vx's prefix. */
  readonly detail: string;
  constructor(code: string, message: string, argv: string[], detail: string = message) {
    super(code, message, argv);
    this.name = "HerdrError";
    this.detail = detail;
  }
}

/** The herdr error code of `err`, or undefined when it is not a HerdrError. */
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
