/**
 * A private tmux server for one compat world (its own socket name, no user config), where the
 * real TUIs run. The server takes its environment from the process that starts it, so each
 * world's server carries that world's HOME and model settings. Closing it stops every pane's
 * process, and the pids seen are checked afterwards.
 */
import { rmSync } from "node:fs";

/** What a test does at a pane as the person: types, presses keys (tmux's names), reads the screen. */
export type Terminal = {
  /** Types literal text (no Enter). */
  type(name: string, text: string): void;
  /** Sends key names (`Enter`, `Escape`, `C-c`, ...). */
  keys(name: string, ...keys: string[]): void;
  /** The visible screen, joined lines. */
  screen(name: string): string;
};

export type Tmux = Terminal & {
  socket: string;
  /**
   * Starts `argv` in a new detached session `columns` wide (default: the server's width);
   * returns the pane's process id.
   */
  start(name: string, argv: string[], cwd: string, columns?: number): number;
  /** Pastes text as one bracketed paste (no Enter), as TMX-02 delivers a prompt. */
  paste(name: string, text: string): void;
  hasSession(name: string): boolean;
  close(): void;
};

/** Wide enough that no harness line wraps; worlds that test a normal terminal ask for 80 or 200. */
export const WIDE_COLUMNS = 220;

export function startTmux(env: Record<string, string>, columns = WIDE_COLUMNS): Tmux {
  const socket = `vx-compat-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const pids = new Set<number>();
  const run = (args: string[]) => {
    const res = Bun.spawnSync(["tmux", "-L", socket, "-f", "/dev/null", ...args], { env, stdout: "pipe", stderr: "pipe" });
    return { code: res.exitCode, out: res.stdout.toString(), err: res.stderr.toString() };
  };
  const must = (args: string[]) => {
    const r = run(args);
    if (r.code !== 0) throw new Error(`tmux ${args[0]} failed: ${r.err.trim()}`);
    return r.out;
  };
  return {
    socket,
    start(name, argv, cwd, width = columns) {
      must(["new-session", "-d", "-s", name, "-x", String(width), "-y", "50", "-c", cwd, "--", ...argv]);
      // A dead pane stays visible so a failing test can still read what the harness printed.
      must(["set-option", "-t", name, "remain-on-exit", "on"]);
      const pid = Number(must(["display-message", "-p", "-t", name, "#{pane_pid}"]).trim());
      pids.add(pid);
      return pid;
    },
    type(name, text) {
      must(["send-keys", "-t", name, "-l", "--", text]);
    },
    paste(name, text) {
      const buffer = `vx-paste-${name}`;
      must(["set-buffer", "-b", buffer, "--", text]);
      must(["paste-buffer", "-p", "-d", "-b", buffer, "-t", name]);
    },
    keys(name, ...keys) {
      must(["send-keys", "-t", name, ...keys]);
    },
    screen(name) {
      return run(["capture-pane", "-p", "-J", "-t", name]).out;
    },
    hasSession(name) {
      return run(["has-session", "-t", name]).code === 0;
    },
    close() {
      // A killed server can leave its socket file behind in the machine's tmux dir: removed too.
      const path = run(["display-message", "-p", "#{socket_path}"]).out.trim();
      run(["kill-server"]);
      if (path.includes(socket)) rmSync(path, { force: true });
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Already gone with its pane.
        }
      }
    },
  };
}
