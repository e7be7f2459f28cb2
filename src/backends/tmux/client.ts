/** tmux client (TMX-01..06), argv only. Targets are ids, never reused while a server runs, or exact names (`=name`). */
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { EXEC_NOT_FOUND, type Exec, type ExecResult } from "../../exec";
import { terminalText } from "../../terminal-text";
import { GUARDS } from "../../time";

type TmuxErrorCode = "tmux_missing" | "no_server" | "session_not_found" | "duplicate_session" | "failed";

export class TmuxError extends Error {
  constructor(
    readonly code: TmuxErrorCode,
    message: string,
    readonly argv: string[],
  ) {
    super(message);
  }
}

/** The session option that names the task a session was made for, read by the survey. */
const TAG = "@vx_task";

/** One pane as `list-panes -a` shows it (TMX-04); `tag`: its session's tag, or empty. */
export type TmuxPane = { session: string; sessionId: string; paneId: string; dead: boolean; command: string; pid: number; tag: string };

type TmuxPaneInfo = { sessionId: string; paneId: string; dead: boolean; path: string };

// Nothing a soldier controls may hold a raw newline or `|`: the path is not surveyed, the command comes last with its
// newlines replaced, the name is quoted by tmux, and the tag is taken only in the shape vx gives it.
const PANE_FORMAT = ["#{session_id}", "#{pane_id}", "#{pane_dead}", "#{pane_pid}", `#{s/\n/ /:${TAG}}`, "#{q:session_name}", "#{s/\n/ /:pane_current_command}"].join("|");
const ROW_RE = /^(\$\d+)\|(%\d+)\|([01])\|(\d+)\|([0-9a-f]{16}|)\|((?:[^\\|]|\\[\s\S])*)\|([\s\S]*)$/;
// One pane only, so its path may come last whatever it holds: the rest of the output is the path.
const INFO_FORMAT = "#{session_id}|#{pane_id}|#{pane_dead}|#{pane_current_path}";
const NEW_FORMAT = "#{session_id}|#{pane_id}";
const INFO_RE = /^(\$\d+)\|(%\d+)\|([01])\|([\s\S]*)\n$/;

const NO_SERVER = /no server running|error connecting to|server exited/i;
// `show-environment` says "no such session".
const NO_SESSION = /can't find session|session not found|no such session|can't find pane|can't find window/i;
// A server with no session left (its last one just ended, or `exit-empty off`) answers a targeted command, and even
// `list-panes -a`, with this (docs/real-clients.md): nothing is on it, as when no server runs.
const NO_SESSIONS = /no current target/i;

// HRD-06 session names start with a letter.
const ID_RE = /^[$%]\d+$/;

/** A pane id or session id as it is; `=name:`, the session's current pane by exact name. */
function paneTarget(target: string): string {
  return ID_RE.test(target) ? target : `=${target}:`;
}

function sessionTarget(target: string): string {
  return ID_RE.test(target) ? target : `=${target}`;
}

/** The socket a plain `tmux` here would use, known before the server exists so a launch records it first. */
export function defaultSocket(env: Record<string, string | undefined>): string {
  const own = env.TMUX?.split(",")[0];
  if (own) return own;
  const uid = process.getuid?.() ?? 0;
  for (const dir of [env.TMUX_TMPDIR, "/tmp"]) {
    if (!dir) continue;
    try {
      return join(realpathSync(dir), `tmux-${uid}`, "default");
    } catch {
      // tmux too skips a TMUX_TMPDIR that does not exist
    }
  }
  return join("/tmp", `tmux-${uid}`, "default");
}

export function ensureSocketDir(socket: string): void {
  const dir = socket.slice(0, socket.lastIndexOf("/"));
  if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** An argument ending in `;` ends a tmux command (`\\;` is the literal): a camp path `shop;` would split new-session. */
export function tmuxLiteral(arg: string): string {
  return arg.endsWith(";") ? `${arg.slice(0, -1)}\\;` : arg;
}

/** For a format argument (`-c`): `#{...}` would be expanded and `#(...)` run; `##` is a literal `#`. */
export function tmuxFormatLiteral(arg: string): string {
  return tmuxLiteral(arg.replaceAll("#", "##"));
}

export const tmuxArgv = {
  /** `keepDeadPane` sets remain-on-exit in the same sequence, so even a program that exits at once leaves its output. */
  newSession: (r: { name: string; cwd: string; env: Record<string, string>; argv: string[]; width?: number; height?: number; keepDeadPane?: boolean; tag?: string }): string[] => [
    // The path, the environment and the argv are data: never a separator or a format to tmux.
    "tmux",
    "new-session",
    "-d",
    "-P",
    "-F",
    NEW_FORMAT,
    "-s",
    r.name,
    "-c",
    tmuxFormatLiteral(r.cwd),
    "-x",
    String(r.width ?? 220),
    "-y",
    String(r.height ?? 50),
    ...Object.entries(r.env).flatMap(([k, v]) => ["-e", tmuxLiteral(`${k}=${v}`)]),
    "--",
    ...r.argv.map(tmuxLiteral),
    ...(r.keepDeadPane ? [";", "set-option", "-t", paneTarget(r.name), "remain-on-exit", "on"] : []),
    // Tagged in the same command, as ids are reused once a server restarts; VX_TASK_ID whatever `env` holds, as keys need it.
    ...(r.tag ? [";", "set-option", "-t", paneTarget(r.name), TAG, r.tag, ";", "set-environment", "-t", sessionTarget(r.name), "VX_TASK_ID", r.tag] : []),
  ],
  hasSession: (name: string): string[] => ["tmux", "has-session", "-t", sessionTarget(name)],
  listPanes: (): string[] => ["tmux", "list-panes", "-a", "-F", PANE_FORMAT],
  /** The last `lines` lines of history and screen, wrapped lines joined (TMX-06). */
  capture: (session: string, lines?: number): string[] => ["tmux", "capture-pane", "-p", "-J", "-t", paneTarget(session), ...(lines === undefined ? [] : ["-S", String(-lines)])],
  /** One sequence, so a vx killed in between leaves no buffer holding the prompt on the user's server. */
  loadAndPaste: (buffer: string, session: string): string[] => ["tmux", "load-buffer", "-b", buffer, "-", ";", "paste-buffer", "-p", "-d", "-b", buffer, "-t", paneTarget(session)],
  sendKeys: (session: string, keys: string[]): string[] => ["tmux", "send-keys", "-t", paneTarget(session), ...keys],
  killSession: (name: string): string[] => ["tmux", "kill-session", "-t", sessionTarget(name)],
  paneDead: (session: string): string[] => ["tmux", "display-message", "-p", "-t", paneTarget(session), "#{pane_dead}"],
  releaseDeadPane: (session: string): string[] => ["tmux", "set-option", "-t", paneTarget(session), "remain-on-exit", "off"],
  /** `-u`: a client tmux takes for non-UTF-8 gets control characters as `_`, and the path must come back exact. */
  paneInfo: (target: string): string[] => ["tmux", "-u", "list-panes", "-t", paneTarget(target), "-f", target.startsWith("%") ? `#{==:#{pane_id},${target}}` : "#{pane_active}", "-F", INFO_FORMAT],
  sessionEnv: (target: string, name: string): string[] => ["tmux", "show-environment", "-t", sessionTarget(target), name],
};

export interface TmuxClient {
  /** The server's socket this client names (`-S`); undefined: tmux picks it from the environment. */
  readonly socket?: string;
  newSession(r: Parameters<typeof tmuxArgv.newSession>[0]): Promise<{ sessionId: string; paneId: string }>;
  hasSession(name: string): Promise<boolean>;
  /** Every pane of the server; none when no server runs. */
  listPanes(): Promise<TmuxPane[]>;
  capture(session: string, lines?: number): Promise<string>;
  /** Pastes `text` as one message (cleaned by `terminalText`: data, never keys), then presses Enter. */
  paste(session: string, text: string): Promise<void>;
  sendKeys(session: string, keys: string[]): Promise<void>;
  /** True when tmux killed it now, false when it was already gone. */
  killSession(name: string): Promise<boolean>;
  /** From now on the session closes when its program exits (undoes `keepDeadPane`). */
  releaseDeadPane(session: string): Promise<void>;
  /** Whether the session's program has exited (its pane kept by `keepDeadPane`). */
  paneDead(session: string): Promise<boolean>;
  /** One pane's ids and current path; undefined when it (or the server) is not there. */
  paneInfo(target: string): Promise<TmuxPaneInfo | undefined>;
  /** A variable of the session's environment; undefined when unset or the session is not there. */
  sessionEnv(target: string, name: string): Promise<string | undefined>;
}

function failure(argv: string[], res: ExecResult): TmuxError {
  const text = res.stderr.trim().split("\n")[0] || `exit ${res.code}`;
  argv = argv.filter((a, i) => i === 0 || a !== "-u"); // the command's name second, as in the messages
  if (res.code === EXEC_NOT_FOUND) return new TmuxError("tmux_missing", "tmux not found in PATH", argv);
  if (NO_SERVER.test(res.stderr)) return new TmuxError("no_server", `tmux ${argv[1]}: no tmux server is running`, argv);
  if (NO_SESSIONS.test(res.stderr)) return new TmuxError("no_server", `tmux ${argv[1]}: the tmux server has no session`, argv);
  if (NO_SESSION.test(res.stderr)) return new TmuxError("session_not_found", `tmux ${argv[1]}: ${text}`, argv);
  if (/duplicate session/i.test(res.stderr)) return new TmuxError("duplicate_session", `tmux ${argv[1]}: ${text}`, argv);
  return new TmuxError("failed", `tmux ${argv[1]}: ${text}`, argv);
}

/** `list-panes` rows in PANE_FORMAT; a row of any other shape is skipped, never guessed at. */
export function parsePanes(stdout: string): TmuxPane[] {
  const out: TmuxPane[] = [];
  for (const line of stdout.split("\n")) {
    const m = ROW_RE.exec(line);
    if (!m) continue;
    const [, sessionId, paneId, dead, pid, tag, quoted, command] = m as unknown as string[];
    const session = quoted!.replace(/\\([\s\S])/g, "$1");
    out.push({ session, sessionId: sessionId!, paneId: paneId!, dead: dead === "1", command: command!, pid: Number(pid), tag: tag! });
  }
  return out;
}

export function parsePaneInfo(stdout: string): TmuxPaneInfo | undefined {
  const m = INFO_RE.exec(stdout);
  if (!m) return undefined;
  return { sessionId: m[1]!, paneId: m[2]!, dead: m[3] === "1", path: m[4]! };
}

/** The ids `new-session -P` printed (tmux exits 0 even when it could not create its socket). */
function parseNew(res: ExecResult, argv: string[]): { sessionId: string; paneId: string } {
  const m = /^(\$\d+)\|(%\d+)\n?$/.exec(res.stdout);
  if (!m) throw new TmuxError("failed", `tmux new-session: ${res.stderr.trim().split("\n")[0] || `unexpected output ${JSON.stringify(res.stdout.slice(0, 80))}`}`, argv);
  return { sessionId: m[1]!, paneId: m[2]! };
}

async function unlessAbsent(call: Promise<string>): Promise<boolean> {
  try {
    await call;
    return true;
  } catch (err) {
    if (err instanceof TmuxError && (err.code === "session_not_found" || err.code === "no_server")) return false;
    throw err;
  }
}

function onSocket(argv: string[], socket?: string): string[] {
  return socket ? [argv[0]!, "-S", socket, ...argv.slice(1)] : argv;
}

export function createTmuxClient(opts: { exec: Exec; env: Record<string, string | undefined>; socket?: string }): TmuxClient {
  const call = async (argv: string[], stdin?: string): Promise<ExecResult> => {
    const res = await opts.exec.run(onSocket(argv, opts.socket), { env: opts.env, stdin, timeoutMs: GUARDS.tmuxCall });
    if (res.code !== 0) throw failure(argv, res);
    return res;
  };
  const run = async (argv: string[], stdin?: string): Promise<string> => (await call(argv, stdin)).stdout;
  return {
    socket: opts.socket,
    async newSession(r) {
      const argv = tmuxArgv.newSession(r);
      try {
        return parseNew(await call(argv), argv);
      } catch (err) {
        // A server still exiting (its last session just closed) refuses; the next call starts a new one.
        if (!(err instanceof TmuxError && err.code === "no_server")) throw err;
        return parseNew(await call(argv), argv);
      }
    },
    hasSession: (name) => unlessAbsent(run(tmuxArgv.hasSession(name))),
    async listPanes() {
      try {
        return parsePanes(await run(tmuxArgv.listPanes()));
      } catch (err) {
        if (err instanceof TmuxError && err.code === "no_server") return [];
        throw err;
      }
    },
    capture: (session, lines) => run(tmuxArgv.capture(session, lines)),
    async paste(session, text) {
      // One buffer per call: concurrent dispatches never paste each other's prompt.
      const buffer = `vx-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
      await run(tmuxArgv.loadAndPaste(buffer, session), terminalText(text));
      await run(tmuxArgv.sendKeys(session, ["Enter"]));
    },
    async sendKeys(session, keys) {
      await run(tmuxArgv.sendKeys(session, keys));
    },
    killSession: (name) => unlessAbsent(run(tmuxArgv.killSession(name))),
    async releaseDeadPane(session) {
      await run(tmuxArgv.releaseDeadPane(session));
    },
    paneDead: async (session) => (await run(tmuxArgv.paneDead(session))).trim() === "1",
    async paneInfo(target) {
      try {
        return parsePaneInfo(await run(tmuxArgv.paneInfo(target)));
      } catch (err) {
        if (err instanceof TmuxError && (err.code === "session_not_found" || err.code === "no_server")) return undefined;
        throw err;
      }
    },
    async sessionEnv(target, name) {
      let out: string;
      try {
        out = await run(tmuxArgv.sessionEnv(target, name));
      } catch (err) {
        // Unset is "unknown variable"; anything else (a timeout) is no answer, so never taken for one.
        const absent = err instanceof TmuxError && (err.code === "session_not_found" || err.code === "no_server" || /unknown variable/i.test(err.message));
        if (absent) return undefined;
        throw err;
      }
      const prefix = `${name}=`;
      return out.startsWith(prefix) ? out.slice(prefix.length).replace(/\n$/, "") : undefined;
    },
  };
}
