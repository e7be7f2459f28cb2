/**
 * A private tmux server for one compat world (its own socket in the run's temp dir, no user config), where the
 * real TUIs run. The server takes its environment from the process that starts it, so each
 * world's server carries that world's HOME and model settings. Closing it stops every pane's
 * process, and the pids seen are checked afterwards.
 */
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
  /** The server's socket path: inside the run's temp dir (tmux-<uid>/, swept by test/preload.ts if a test times out). */
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
  // Not `-L name`: that makes the machine's tmux-<uid> dir in /tmp, which nothing removes after the run.
  const dir = join(tmpdir(), `tmux-${process.getuid?.() ?? 0}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socket = join(dir, `vx-compat-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  const pids = new Set<number>();
  const run = (args: string[]) => {
    const res = Bun.spawnSync(["tmux", "-S", socket, "-f", "/dev/null", ...args], { env, stdout: "pipe", stderr: "pipe" });
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
      // A killed server can leave its socket file behind: removed too.
      run(["kill-server"]);
      rmSync(socket, { force: true });
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
