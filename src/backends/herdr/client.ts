/** A thin typed client over the herdr CLI (HRD-02, HRD-03): the caller's env unchanged (ENV-02), every call timed out. */
import type { AgentInfo } from "../agents";
import { EXEC_CANNOT_RUN, EXEC_NOT_FOUND, type Exec, type ExecResult } from "../../exec";
import type { Env } from "../../state/paths";
import { terminalText } from "../../terminal-text";
import { GUARDS, seconds } from "../../time";
import { type HerdrVersion, parseHerdrVersion } from "./version";
import { HerdrError, isObject, type ServerStatus, toAgentInfo, toServerStatus } from "./types";

type ReadSource = "recent-unwrapped" | "visible";

type TabCreateRequest = {
  workspace: string;
  cwd: string;
  label: string;
  /** Variables for the tab's shell (`--env K=V`): on a command line, so never a secret. */
  env?: Record<string, string>;
};
export type PromptOptions = {
  /** Wait (`--wait --timeout <ms>`) until the agent settles; omitted means fire and return. */
  waitTimeoutMs?: number;
};
type HerdrVersionInfo = { text: string; version: HerdrVersion | undefined };

/** herdr takes a `-` argument for an option and documents no `--` for `agent prompt`: a leading space keeps it text (ENV-10). */
export function promptTextArg(text: string): string {
  return text.startsWith("-") ? ` ${text}` : text;
}

// herdr takes integer milliseconds; scaled durations can be fractional.
function ms(n: number): string {
  return String(Math.max(1, Math.ceil(n)));
}

/** Pure argv builders (HRD-03); `herdr` is found through the env's PATH. */
export const herdrArgv = {
  version: (): string[] => ["herdr", "--version"],
  serverStatus: (): string[] => ["herdr", "status", "server", "--json"],
  tabCreate: (r: TabCreateRequest): string[] => [
    "herdr",
    "tab",
    "create",
    "--workspace",
    r.workspace,
    "--cwd",
    r.cwd,
    "--label",
    r.label,
    "--no-focus",
    ...Object.entries(r.env ?? {}).flatMap(([k, v]) => ["--env", `${k}=${v}`]),
  ],
  /** `--` is left out when there are no harness args: herdr documents it as optional. */
  agentStart: (name: string, kind: string, pane: string, args: string[]): string[] => ["herdr", "agent", "start", name, "--kind", kind, "--pane", pane, ...(args.length ? ["--", ...args] : [])],
  agentGet: (target: string): string[] => ["herdr", "agent", "get", target],
  agentRename: (target: string, name: string): string[] => ["herdr", "agent", "rename", target, name],
  agentList: (): string[] => ["herdr", "agent", "list"],
  /** herdr types the text into the pane, so it goes as `terminalText` leaves it: data, never keys. */
  agentPrompt: (target: string, text: string, opts: PromptOptions = {}): string[] => [
    "herdr",
    "agent",
    "prompt",
    target,
    promptTextArg(terminalText(text)),
    ...(opts.waitTimeoutMs === undefined ? [] : ["--wait", "--timeout", ms(opts.waitTimeoutMs)]),
  ],
  agentWait: (target: string, timeoutMs: number): string[] => ["herdr", "agent", "wait", target, "--timeout", ms(timeoutMs)],
  /** No source means herdr's default (`recent`); no lines means herdr's default (the whole screen for `visible`). */
  agentRead: (target: string, source?: ReadSource, lines?: number): string[] => [
    "herdr",
    "agent",
    "read",
    target,
    ...(source === undefined ? [] : ["--source", source]),
    ...(lines === undefined ? [] : ["--lines", String(lines)]),
  ],
  agentSendKeys: (target: string, keys: string[]): string[] => ["herdr", "agent", "send-keys", target, ...keys],
  tabList: (workspace: string): string[] => ["herdr", "tab", "list", "--workspace", workspace],
  paneList: (workspace: string): string[] => ["herdr", "pane", "list", "--workspace", workspace],
  tabClose: (tab: string): string[] => ["herdr", "tab", "close", tab],
  paneClose: (pane: string): string[] => ["herdr", "pane", "close", pane],
};

type TabEntry = { tabId: string; label: string };
type PaneEntry = { paneId: string; tabId: string; cwd?: string };

/** The herdr commands vx uses. Every method throws HerdrError on failure. */
export interface HerdrClient {
  /** `herdr --version`: the raw line and its parsed version (undefined when unrecognised). */
  version(): Promise<HerdrVersionInfo>;
  /** `herdr status server --json`; answers even when the server is down. */
  serverStatus(): Promise<ServerStatus>;
  tabCreate(r: TabCreateRequest): Promise<{ tabId: string; paneId: string }>;
  /** Starts a harness in an available shell; returns herdr's view of it when reported. */
  agentStart(name: string, kind: string, pane: string, args: string[]): Promise<AgentInfo | undefined>;
  agentGet(target: string): Promise<AgentInfo>;
  agentRename(target: string, name: string): Promise<AgentInfo>;
  agentList(): Promise<AgentInfo[]>;
  /** Sends `text` as one argv element; with a wait, returns the agent as it settled. */
  agentPrompt(target: string, text: string, opts?: PromptOptions): Promise<AgentInfo>;
  agentWait(target: string, timeoutMs: number): Promise<AgentInfo>;
  /** Raw pane text, exactly as herdr prints it. */
  agentRead(target: string, source?: ReadSource, lines?: number): Promise<string>;
  agentSendKeys(target: string, keys: string[]): Promise<void>;
  tabList(workspace: string): Promise<TabEntry[]>;
  paneList(workspace: string): Promise<PaneEntry[]>;
  tabClose(tab: string): Promise<void>;
  paneClose(pane: string): Promise<void>;
}

type HerdrClientOptions = {
  exec: Exec;
  /** Passed to herdr unchanged, so HERDR_SOCKET_PATH and HERDR_SESSION keep their meaning (ENV-02). */
  env: Env;
  callGuardMs?: number;
};

/** Beyond a call's own wait; against a hung CLI only, so not scaled (start-up is no faster in tests). */
export const CALL_GUARD_MS = GUARDS.herdrCall;

// The group and verb name the call in messages; the rest of argv may hold a whole prompt.
function label(argv: string[]): string {
  return argv[1]?.startsWith("-") ? `herdr ${argv[1]}` : `herdr ${argv.slice(1, 3).join(" ")}`;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function apiError(stderr: string): { code: string; message: string } | undefined {
  try {
    const doc: unknown = JSON.parse(stderr.trim());
    if (isObject(doc) && isObject(doc.error) && typeof doc.error.code === "string") {
      return { code: doc.error.code, message: typeof doc.error.message === "string" ? doc.error.message : "" };
    }
  } catch {
    // Not an API error envelope: handled as a usage error or crash below.
  }
  return undefined;
}

const CONNECTION_LOST = /\b(?:ConnectionReset|ConnectionRefused|ConnectionAborted|BrokenPipe|NotConnected)\b|connection (?:reset|refused)|broken pipe/i;

/** Turns a failed run into the HerdrError HRD-02 calls for. */
export function failure(argv: string[], res: ExecResult, guardMs: number): HerdrError {
  const name = label(argv);
  if (res.code === EXEC_NOT_FOUND) return new HerdrError("herdr_missing", "herdr not found in PATH", argv, res.stderr.trim());
  if (res.code === EXEC_CANNOT_RUN) return new HerdrError("herdr_spawn_failed", `${name}: could not run herdr: ${res.stderr.trim()}`, argv, res.stderr.trim());
  const api = apiError(res.stderr);
  if (api) return new HerdrError(api.code, `${name}: ${api.message || api.code} (${api.code})`, argv, api.message);
  if (res.code === 124) {
    return new HerdrError("exec_timeout", `${name} did not finish within ${seconds(guardMs)}s`, argv);
  }
  const text = firstLine(res.stderr) || firstLine(res.stdout);
  // The socket failed under the CLI, which prints the OS error, no envelope: an outage, not a bad call.
  if (CONNECTION_LOST.test(res.stderr)) {
    return new HerdrError("server_unavailable", `${name}: the herdr server could not be reached (${text})`, argv, text);
  }
  if (res.code === 1 || res.code === 2) {
    return new HerdrError("usage", `${name}: herdr rejected the call (exit ${res.code}): ${text}`, argv, text);
  }
  return new HerdrError("failed", `${name} failed (exit ${res.code})${text ? `: ${text}` : ""}`, argv, text);
}

function unparsable(argv: string[], stdout: string): HerdrError {
  const text = firstLine(stdout);
  return new HerdrError("unparsable", `${label(argv)}: unparsable output: ${JSON.stringify(text)}`, argv, text);
}

/** The `result` object of a success envelope (one JSON line on stdout, keys in any order). */
function parseEnvelope(argv: string[], stdout: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout.trim());
  } catch {
    throw unparsable(argv, stdout);
  }
  if (!isObject(doc) || !isObject(doc.result)) throw unparsable(argv, stdout);
  return doc.result;
}

function agentOf(argv: string[], stdout: string, result: Record<string, unknown>): AgentInfo {
  const agent = toAgentInfo(result.agent);
  if (!agent) throw unparsable(argv, stdout);
  return agent;
}

export function createHerdrClient(opts: HerdrClientOptions): HerdrClient {
  const guard = opts.callGuardMs ?? CALL_GUARD_MS;

  async function run(argv: string[], waitMs = 0): Promise<string> {
    const timeoutMs = guard + waitMs;
    const res = await opts.exec.run(argv, { env: opts.env, timeoutMs });
    if (res.code !== 0) throw failure(argv, res, timeoutMs);
    return res.stdout;
  }

  async function envelope(argv: string[], waitMs = 0): Promise<{ result: Record<string, unknown>; stdout: string }> {
    const stdout = await run(argv, waitMs);
    return { result: parseEnvelope(argv, stdout), stdout };
  }

  async function agentCall(argv: string[], waitMs = 0): Promise<AgentInfo> {
    const { result, stdout } = await envelope(argv, waitMs);
    return agentOf(argv, stdout, result);
  }

  return {
    async version() {
      const text = (await run(herdrArgv.version())).trim();
      return { text, version: parseHerdrVersion(text) };
    },
    async serverStatus() {
      const argv = herdrArgv.serverStatus();
      const stdout = await run(argv);
      let doc: unknown;
      try {
        doc = JSON.parse(stdout.trim());
      } catch {
        throw unparsable(argv, stdout);
      }
      const status = toServerStatus(doc);
      if (!status) throw unparsable(argv, stdout);
      return status;
    },
    async tabCreate(r) {
      const argv = herdrArgv.tabCreate(r);
      const { result, stdout } = await envelope(argv);
      const tabId = isObject(result.tab) ? result.tab.tab_id : undefined;
      const paneId = isObject(result.root_pane) ? result.root_pane.pane_id : undefined;
      if (typeof tabId !== "string" || !tabId || typeof paneId !== "string" || !paneId) {
        throw new HerdrError("unparsable", `unexpected tab create response: ${stdout.trim()}`, argv);
      }
      return { tabId, paneId };
    },
    async agentStart(name, kind, pane, args) {
      const { result } = await envelope(herdrArgv.agentStart(name, kind, pane, args));
      return toAgentInfo(result.agent);
    },
    agentGet: (target) => agentCall(herdrArgv.agentGet(target)),
    agentRename: (target, name) => agentCall(herdrArgv.agentRename(target, name)),
    async agentList() {
      const argv = herdrArgv.agentList();
      const { result, stdout } = await envelope(argv);
      if (!Array.isArray(result.agents)) throw unparsable(argv, stdout);
      return result.agents.map((raw) => {
        const agent = toAgentInfo(raw);
        if (!agent) throw unparsable(argv, stdout);
        return agent;
      });
    },
    agentPrompt: (target, text, o = {}) => agentCall(herdrArgv.agentPrompt(target, text, o), o.waitTimeoutMs ?? 0),
    agentWait: (target, timeoutMs) => agentCall(herdrArgv.agentWait(target, timeoutMs), timeoutMs),
    agentRead: (target, source, lines) => run(herdrArgv.agentRead(target, source, lines)),
    async agentSendKeys(target, keys) {
      await envelope(herdrArgv.agentSendKeys(target, keys));
    },
    async tabList(workspace) {
      const argv = herdrArgv.tabList(workspace);
      const { result, stdout } = await envelope(argv);
      if (!Array.isArray(result.tabs)) throw unparsable(argv, stdout);
      return result.tabs.map((t) => {
        if (!isObject(t) || typeof t.tab_id !== "string") throw unparsable(argv, stdout);
        return { tabId: t.tab_id, label: typeof t.label === "string" ? t.label : "" };
      });
    },
    async paneList(workspace) {
      const argv = herdrArgv.paneList(workspace);
      const { result, stdout } = await envelope(argv);
      if (!Array.isArray(result.panes)) throw unparsable(argv, stdout);
      return result.panes.map((p) => {
        if (!isObject(p) || typeof p.pane_id !== "string" || typeof p.tab_id !== "string") throw unparsable(argv, stdout);
        return { paneId: p.pane_id, tabId: p.tab_id, cwd: typeof p.cwd === "string" ? p.cwd : undefined };
      });
    },
    async tabClose(tab) {
      await envelope(herdrArgv.tabClose(tab));
    },
    async paneClose(pane) {
      await envelope(herdrArgv.paneClose(pane));
    },
  };
}
