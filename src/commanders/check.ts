/**
 * Which registered commanders are live (CMDR-03), (doctor's DOC-12 check reads them: doctor/commanders.ts). A
 * commander is live when one `herdr agent list` shows an agent of its kind in its pane.
 */
import type { AgentInfo } from "../backends/herdr-types";
import { tmuxCommanderLive } from "../backends/tmux-commander";
import { HARNESSES, HARNESS_NAMES, type HarnessName } from "../harnesses";
import type { Exec } from "../exec";
import type { ProjectPaths } from "../state/paths";
import { loadRecord } from "../state/record";
import { type Commanders, CommandersSchema } from "../state/schemas";

/** Commanders without an async hook, which the sentinel delivers to itself (CMDR-08, CMDR-09). */
export const HOOKLESS: readonly HarnessName[] = HARNESS_NAMES.filter((h) => HARNESSES[h].commander.wake.kind !== "hook");

/** True when the project registered a hook-less commander; an unreadable registry counts as none. */
export function hasHooklessCommander(paths: ProjectPaths): boolean {
  try {
    const registered = readCommanders(paths)?.commanders;
    return HOOKLESS.some((h) => registered?.[h] !== undefined);
  } catch {
    return false;
  }
}

/** One registered commander that the agent list shows alive. */
export type LiveCommander = { harness: string; pane: string };

/** The project's `commanders.json`; undefined when there is none. Throws on a corrupt file. */
export function readCommanders(paths: ProjectPaths): Commanders | undefined {
  return loadRecord(paths.commandersFile, CommandersSchema, true)?.value;
}

/** The registered commanders with an agent of their kind in their pane, sorted by harness. */
export function liveCommanders(registry: Commanders, agents: readonly AgentInfo[]): LiveCommander[] {
  return Object.entries(registry.commanders)
    .filter(([harness, c]) => c.herdr_pane_id !== undefined && agents.some((a) => a.pane_id === c.herdr_pane_id && a.agent === harness))
    .map(([harness, c]) => ({ harness, pane: c.herdr_pane_id as string }))
    .sort((a, b) => (a.harness < b.harness ? -1 : a.harness > b.harness ? 1 : 0));
}

/** CMDR-10: the registered commanders live in a plain tmux pane (their own pid, their pane). */
export async function liveTmuxCommanders(registry: Commanders, exec: Exec, env: Record<string, string | undefined>): Promise<LiveCommander[]> {
  const out: LiveCommander[] = [];
  for (const [harness, c] of Object.entries(registry.commanders)) {
    if (!c.tmux_pane || !(HARNESS_NAMES as readonly string[]).includes(harness)) continue;
    if (await tmuxCommanderLive(harness as HarnessName, c, exec, env)) out.push({ harness, pane: `${c.tmux_pane} (tmux)` });
  }
  return out;
}
