/**
 * Hook-less commanders in a plain tmux pane, without herdr (CMDR-10, AWT-12). herdr is what names
 * a pane's agent and says whether it is idle; in a plain tmux pane vx learns both itself:
 * - registration: the commander runs vx from its shell tool, so the harness is the nearest
 *   ancestor of that vx whose program is the harness, its pane is `TMUX_PANE` on the server of
 *   `TMUX`, and the harness marks the commands it runs (`CODEX_THREAD_ID`, ...);
 * - liveness: that pid still runs the harness and the pane is still on its server;
 * - idleness and an empty input line: read from the pane's screen, by the harness's own texts.
 * All per-harness knowledge of this is the one table below.
 */
import type { Exec } from "../exec";
import { createTmuxClient } from "../backends/tmux";
import { inspectProcess } from "../procs";
import type { Commander } from "../state/schemas";

type Env = Record<string, string | undefined>;

export type TmuxHarnessRule = {
  /** An environment variable the harness sets on the commands it runs (its shell tool). */
  marker: string;
  /** A variable holding the harness's own pid, where it sets one (checked against `program`). */
  pidVar?: string;
  /** The harness's own process, by the basename of its first argv word. */
  program: RegExp;
  /** On screen while a turn runs. */
  busy: RegExp;
  /** What starts the input line. */
  mark: string;
  /** The rest of that line when it holds nothing the person typed (a placeholder, or nothing). */
  emptyInput: RegExp;
};

/** Per-harness knowledge, in one table (see the module comment). */
export const TMUX_COMMANDER_RULES: Record<"codex" | "opencode", TmuxHarnessRule> = {
  // Codex 0.171: `• Working (3s • esc to interrupt)` while busy; an empty composer shows `› ` and a
  // grey placeholder sentence, or nothing.
  codex: {
    marker: "CODEX_THREAD_ID",
    program: /^codex$/,
    busy: /esc to interrupt/i,
    mark: "›",
    emptyInput: /^(?:Ask Codex to do anything|Find and fix a bug in @filename|Improve documentation in @filename|Summarize recent commits|Implement \{feature\}|Explain this codebase|Write tests for @filename|Use \/skills to list available skills|Run \/review on my current changes)?$/,
  },
  // OpenCode 1.x: `esc interrupt` in its footer while busy; its prompt box line starts with `┃`.
  // OpenCode sets OPENCODE=1 and OPENCODE_PID on itself, so its shell tool's commands inherit both.
  opencode: { marker: "OPENCODE", pidVar: "OPENCODE_PID", program: /^opencode$/, busy: /esc\s+interrupt/i, mark: "┃", emptyInput: /^(?:Ask anything\.\.\..*)?$/ },
};

export type TmuxHarness = keyof typeof TMUX_COMMANDER_RULES;

/** What a plain-tmux registration records (CMDR-10). */
export type TmuxCommander = { harness: TmuxHarness; pane: string; socket: string; pid: number };

/** The depth of the search for the harness above vx (shells and wrappers in between). */
const MAX_ANCESTORS = 8;

function baseName(command: string): string {
  const first = command.trim().split(/\s+/, 1)[0] ?? "";
  return first.slice(first.lastIndexOf("/") + 1);
}

/**
 * The calling hook-less commander in a plain tmux pane: a harness whose marker is set, with its
 * own process among vx's ancestors. Undefined otherwise (vx was not run by such a commander).
 */
export async function identifyTmuxCommander(env: Env, ppid: number, exec: Exec): Promise<TmuxCommander | undefined> {
  const pane = env.TMUX_PANE;
  const socket = env.TMUX?.split(",")[0];
  if (!pane || !socket) return undefined;
  for (const [harness, rule] of Object.entries(TMUX_COMMANDER_RULES) as [TmuxHarness, TmuxHarnessRule][]) {
    if (!env[rule.marker]) continue;
    const own = rule.pidVar ? Number(env[rule.pidVar]) : Number.NaN;
    let pid = Number.isSafeInteger(own) && own > 1 ? own : ppid;
    for (let i = 0; i < MAX_ANCESTORS && pid > 1; i++) {
      const info = await inspectProcess(pid, exec);
      if (!info) break;
      if (rule.program.test(baseName(info.command))) return { harness, pane, socket, pid };
      pid = info.ppid;
    }
  }
  return undefined;
}

/** Live: the recorded pid still runs the harness, and the pane is still on its server. */
export async function tmuxCommanderLive(harness: TmuxHarness, entry: Commander, exec: Exec, env: Env): Promise<boolean> {
  if (!entry.tmux_pane || !entry.tmux_socket || !entry.pid) return false;
  const info = await inspectProcess(entry.pid, exec);
  if (!info || !TMUX_COMMANDER_RULES[harness].program.test(baseName(info.command))) return false;
  try {
    return (await createTmuxClient({ exec, env, socket: entry.tmux_socket }).paneInfo(entry.tmux_pane)) !== undefined;
  } catch {
    return false;
  }
}

export type ScreenState = { idle: boolean; inputEmpty: boolean };

/**
 * Pure: whether the harness is idle (no busy text on screen) and its input line holds nothing the
 * person typed. The input line is the last line starting with the harness's prompt mark.
 */
export function screenState(harness: TmuxHarness, screen: string): ScreenState {
  const rule = TMUX_COMMANDER_RULES[harness];
  const input = screen
    .split("\n")
    .map((l) => l.trim())
    .findLast((l) => l.startsWith(rule.mark));
  const typed = input?.slice(rule.mark.length).trim();
  return { idle: !rule.busy.test(screen), inputEmpty: typed !== undefined && rule.emptyInput.test(typed) };
}
