/**
 * Hook-less commanders in a plain tmux pane (CMDR-10, AWT-12), where no herdr names the agent: the harness is vx's nearest
 * ancestor running it, its marker set; live while that pid runs it in the pane; idle as its screen shows.
 */
import { errorMessage } from "../../errors";
import type { Exec } from "../../exec";
import { HARNESSES, type HarnessName } from "../../harnesses";
import type { Delivery, TmuxCommanderRule } from "../../harnesses/types";
import { inspectProcess } from "../../procs";
import type { Commander } from "../../state/schemas";
import type { Clock } from "../../time";
import { type ScreenState, notTypedBecause, resubmitWake, screenState } from "../commander-screen";
import { createTmuxClient } from "./client";

type Env = Record<string, string | undefined>;

function tmuxRules(): [HarnessName, TmuxCommanderRule][] {
  return Object.values(HARNESSES).flatMap((h) => (h.commander.tmuxCommander ? [[h.name, h.commander.tmuxCommander] as [HarnessName, TmuxCommanderRule]] : []));
}

type TmuxCommander = { harness: HarnessName; pane: string; socket: string; pid: number };

/** The depth of the search for the harness above vx (shells and wrappers in between). */
const MAX_ANCESTORS = 8;

const base = (word: string) => word.slice(word.lastIndexOf("/") + 1);

/** Harnesses shipped as scripts run under one of these (Gemini CLI: `node [flags] .../gemini`). */
const INTERPRETERS = /^(node|nodejs|bun)$/;

/** The basename of the first word, or of an interpreter's script. */
function baseName(command: string): string {
  const words = command.trim().split(/\s+/);
  const first = base(words[0] ?? "");
  if (!INTERPRETERS.test(first)) return first;
  const script = words.slice(1).find((w) => !w.startsWith("-"));
  return script ? base(script) : first;
}

/** A harness whose marker is set, with its own process among vx's ancestors; else undefined. */
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
  const rule = HARNESSES[harness]?.commander.tmuxCommander;
  if (!rule || !entry.tmux_pane || !entry.tmux_socket || !entry.pid) return false;
  const info = await inspectProcess(entry.pid, exec);
  if (!info || !rule.program.test(baseName(info.command))) return false;
  try {
    return (await createTmuxClient({ exec, env, socket: entry.tmux_socket }).paneInfo(entry.tmux_pane)) !== undefined;
  } catch {
    return false;
  }
}

/** CMDR-10: the commander's tmux pane, read now; unreadable counts as busy, never typed into. */
export async function readCommanderScreen(exec: Exec, env: Env, harness: HarnessName, entry: Commander): Promise<ScreenState & { screen?: string }> {
  try {
    const tmux = createTmuxClient({ exec, env, socket: entry.tmux_socket });
    const screen = await tmux.capture(entry.tmux_pane as string);
    return { ...screenState(harness, screen), screen };
  } catch {
    return { idle: false, inputEmpty: false };
  }
}

/** CMDR-10: once the paste went in the wake counts as delivered, never typed twice; any error leaves it to the caller. */
export async function typeIntoCommander(exec: Exec, env: Env, harness: HarnessName, entry: Commander, text: string, clock: Clock): Promise<Delivery> {
  const state = await readCommanderScreen(exec, env, harness, entry);
  const why = notTypedBecause(state);
  if (why) return { ok: false, error: `tmux pane ${entry.tmux_pane}: the commander is ${why}` };
  const tmux = createTmuxClient({ exec, env, socket: entry.tmux_socket });
  try {
    await tmux.paste(entry.tmux_pane as string, text);
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
  await resubmitWake({ term: tmux, pane: entry.tmux_pane as string, clock, env }, harness, state.screen ?? "", text).catch(() => undefined);
  return { ok: true };
}
