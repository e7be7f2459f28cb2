/**
 * Hook-less commanders in a plain tmux pane, without herdr (CMDR-10, AWT-12). herdr is what names
 * a pane's agent and says whether it is idle; in a plain tmux pane vx learns both itself:
 * - registration: the commander runs vx from its shell tool, so the harness is the nearest
 *   ancestor of that vx whose program is the harness, its pane is `TMUX_PANE` on the server of
 *   `TMUX`, and the harness marks the commands it runs (`CODEX_THREAD_ID`, ...);
 * - liveness: that pid still runs the harness and the pane is still on its server;
 * - idleness and an empty input line: read from the pane's screen, by the harness's own texts.
 * The per-harness knowledge of this is each harness module's `commander.tmuxCommander`.
 */
import { errorMessage } from "../errors";
import type { Exec } from "../exec";
import { HARNESSES, type HarnessName } from "../harnesses";
import type { Delivery, TmuxCommanderRule } from "../harnesses/types";
import { inspectProcess } from "../procs";
import type { Commander } from "../state/schemas";
import { createTmuxClient } from "./tmux";

type Env = Record<string, string | undefined>;

/** The harnesses with plain-tmux-pane rules, with their rules, in registry order. */
function tmuxRules(): [HarnessName, TmuxCommanderRule][] {
  return Object.values(HARNESSES).flatMap((h) => (h.commander.tmuxCommander ? [[h.name, h.commander.tmuxCommander] as [HarnessName, TmuxCommanderRule]] : []));
}

/** What a plain-tmux registration records (CMDR-10). */
export type TmuxCommander = { harness: HarnessName; pane: string; socket: string; pid: number };

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
  for (const [harness, rule] of tmuxRules()) {
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
export async function tmuxCommanderLive(harness: HarnessName, entry: Commander, exec: Exec, env: Env): Promise<boolean> {
  const rule = HARNESSES[harness].commander.tmuxCommander;
  if (!rule || !entry.tmux_pane || !entry.tmux_socket || !entry.pid) return false;
  const info = await inspectProcess(entry.pid, exec);
  if (!info || !rule.program.test(baseName(info.command))) return false;
  try {
    return (await createTmuxClient({ exec, env, socket: entry.tmux_socket }).paneInfo(entry.tmux_pane)) !== undefined;
  } catch {
    return false;
  }
}

export type ScreenState = { idle: boolean; inputEmpty: boolean };

/**
 * Pure: whether the harness is idle (no busy text on screen) and its input line holds nothing the
 * person typed. The input line is the last line starting with the harness's prompt mark. A
 * harness without plain-tmux rules reads as busy: it is never typed into.
 */
export function screenState(harness: HarnessName, screen: string): ScreenState {
  const rule = HARNESSES[harness].commander.tmuxCommander;
  if (!rule) return { idle: false, inputEmpty: false };
  const input = screen
    .split("\n")
    .map((l) => l.trim())
    .findLast((l) => l.startsWith(rule.mark));
  const typed = input?.slice(rule.mark.length).trim();
  return { idle: !rule.busy.test(screen), inputEmpty: typed !== undefined && rule.emptyInput.test(typed) };
}

/** CMDR-10: the commander's tmux pane, read now; unreadable counts as busy, never typed into. */
export async function readCommanderScreen(exec: Exec, env: Env, harness: HarnessName, entry: Commander): Promise<ScreenState> {
  try {
    const tmux = createTmuxClient({ exec, env, socket: entry.tmux_socket });
    return screenState(harness, await tmux.capture(entry.tmux_pane as string));
  } catch {
    return { idle: false, inputEmpty: false };
  }
}

/**
 * CMDR-10: typed into the commander's plain tmux pane (one bracketed paste, then Enter), only when
 * it is idle and its input line holds nothing a person typed; otherwise an error, and the caller
 * keeps the wake for the next pass.
 */
export async function typeIntoCommander(exec: Exec, env: Env, harness: HarnessName, entry: Commander, text: string): Promise<Delivery> {
  const screen = await readCommanderScreen(exec, env, harness, entry);
  if (!screen.idle || !screen.inputEmpty) {
    return { ok: false, error: `tmux pane ${entry.tmux_pane}: the commander is ${screen.idle ? "holding unsent text in its input line" : "busy"}` };
  }
  try {
    await createTmuxClient({ exec, env, socket: entry.tmux_socket }).paste(entry.tmux_pane as string, text);
    return { ok: true };
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}
