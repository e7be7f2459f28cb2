/**
 * Typed tmux CLI client for the tmux backend (TMX-01..06): one session per soldier on the user's
 * default server, argv only (the harness is exec'd by tmux, never typed into a shell), sessions
 * always named exactly (`=name`) so a name that prefixes another never matches it.
 */
import { EXEC_NOT_FOUND, type Exec, type ExecResult } from "../exec";
import { terminalText } from "../terminal-text";
import { GUARDS } from "../time";

export type TmuxErrorCode = "tmux_missing" | "no_server" | "session_not_found" | "duplicate_session" | "failed";

export class TmuxError extends Error {
  constructor(
    readonly code: TmuxErrorCode,
    message: string,
    readonly argv: string[],
  ) {
    super(message);
  }
}

/** One pane as `list-panes -a` shows it (TMX-04). */
export type TmuxPane = { session: string; paneId: string; dead: boolean; command: string; path: string; pid: number };

// tmux prints control characters in formats as `_`, so the fields are split on `|`; the path,
// the only field that may hold one, comes last and takes the rest of the line.
const PANE_FORMAT = ["#{session_name}", "#{pane_id}", "#{pane_dead}", "#{pane_pid}", "#{pane_current_command}", "#{pane_current_path}"].join("|");

// tmux's wording when the session, or the whole server, is not there.
const NO_SERVER = /no server running|error connecting to|server exited/i;
const NO_SESSION = /can't find session|session not found|can't find pane|can't find window/i;

/** `=name:` targets the session's current pane by exact session name. */
export function paneTarget(session: string): string {
  return `=${session}:`;
}

export const tmuxArgv = {
  /**
   * `keepDeadPane` sets remain-on-exit in the same tmux command sequence (a `;` argument), so even
   * a program that exits at once leaves its pane, and what it printed, behind.
   */
  newSession: (r: { name: string; cwd: string; env: Record<string, string>; argv: string[]; width?: number; height?: number; keepDeadPane?: boolean }): string[] => [
    "tmux", "new-session", "-d", "-s", r.name, "-c", r.cwd,
    "-x", String(r.width ?? 220), "-y", String(r.height ?? 50),
    ...Object.entries(r.env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
    "--", ...r.argv,
    ...(r.keepDeadPane ? [";", "set-option", "-t", paneTarget(r.name), "remain-on-exit", "on"] : []),
  ],
  hasSession: (name: string): string[] => ["tmux", "has-session", "-t", `=${name}`],
  listPanes: (): string[] => ["tmux", "list-panes", "-a", "-F", PANE_FORMAT],
  /** The last `lines` lines of history and screen, wrapped lines joined (TMX-06). */
  capture: (session: string, lines?: number): string[] => [
    "tmux", "capture-pane", "-p", "-J", "-t", paneTarget(session), ...(lines === undefined ? [] : ["-S", String(-lines)]),
  ],
  /**
   * The text on stdin loaded and pasted (bracketed, buffer deleted) in one tmux command sequence,
   * so no vx killed in between leaves its buffer, and the prompt in it, on the user's server.
   */
  loadAndPaste: (buffer: string, session: string): string[] => [
    "tmux", "load-buffer", "-b", buffer, "-", ";", "paste-buffer", "-p", "-d", "-b", buffer, "-t", paneTarget(session),
  ],
  sendKeys: (session: string, keys: string[]): string[] => ["tmux", "send-keys", "-t", paneTarget(session), ...keys],
  killSession: (name: string): string[] => ["tmux", "kill-session", "-t", `=${name}`],
  paneDead: (session: string): string[] => ["tmux", "display-message", "-p", "-t", paneTarget(session), "#{pane_dead}"],
  releaseDeadPane: (session: string): string[] => ["tmux", "set-option", "-t", paneTarget(session), "remain-on-exit", "off"],
};

export interface TmuxClient {
  newSession(r: Parameters<typeof tmuxArgv.newSession>[0]): Promise<void>;
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
}

function failure(argv: string[], res: ExecResult): TmuxError {
  const text = res.stderr.trim().split("\n")[0] || `exit ${res.code}`;
  if (res.code === EXEC_NOT_FOUND) return new TmuxError("tmux_missing", "tmux not found in PATH", argv);
  if (NO_SERVER.test(res.stderr)) return new TmuxError("no_server", `tmux ${argv[1]}: no tmux server is running`, argv);
  if (NO_SESSION.test(res.stderr)) return new TmuxError("session_not_found", `tmux ${argv[1]}: ${text}`, argv);
  if (/duplicate session/i.test(res.stderr)) return new TmuxError("duplicate_session", `tmux ${argv[1]}: ${text}`, argv);
  return new TmuxError("failed", `tmux ${argv[1]}: ${text}`, argv);
}

export function parsePanes(stdout: string): TmuxPane[] {
  const out: TmuxPane[] = [];
  for (const line of stdout.split("\n")) {
    const [session, paneId, dead, pid, command, ...path] = line.split("|");
    if (!session || paneId === undefined) continue;
    out.push({ session, paneId, dead: dead === "1", command: command ?? "", path: path.join("|"), pid: Number(pid) || 0 });
  }
  return out;
}

/** True when the call succeeded, false when its session (or the whole server) is not there. */
async function unlessAbsent(call: Promise<string>): Promise<boolean> {
  try {
    await call;
    return true;
  } catch (err) {
    if (err instanceof TmuxError && (err.code === "session_not_found" || err.code === "no_server")) return false;
    throw err;
  }
}

export function createTmuxClient(opts: { exec: Exec; env: Record<string, string | undefined> }): TmuxClient {
  const run = async (argv: string[], stdin?: string): Promise<string> => {
    const res = await opts.exec.run(argv, { env: opts.env, stdin, timeoutMs: GUARDS.tmuxCall });
    if (res.code !== 0) throw failure(argv, res);
    return res.stdout;
  };
  return {
    async newSession(r) {
      await run(tmuxArgv.newSession(r));
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
  };
}
