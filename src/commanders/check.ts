/**
 * Which registered commanders are live (CMDR-03, CMDR-10; doctor's DOC-12 check reads them:
 * doctor/commanders.ts): live as the backend holding its pane finds it (`Backend.findCommander`).
 */
import { ALL_BACKENDS, type BackendDeps, type CommanderCtx, type CommanderSeat } from "../backends";
import type { AgentInfo } from "../backends/agents";
import { HARNESSES, HARNESS_NAMES, type HarnessName } from "../harnesses";
import type { ProjectPaths } from "../state/paths";
import { loadRecord } from "../state/record";
import { type Commander, type Commanders, CommandersSchema } from "../state/schemas";

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

/** One registered commander a backend finds live, and where. */
type LiveCommander = { harness: string; pane: string };

/** The project's `commanders.json`; undefined when there is none. Throws on a corrupt file. */
export function readCommanders(paths: ProjectPaths): Commanders | undefined {
  return loadRecord(paths.commandersFile, CommandersSchema, true)?.value;
}

/** The first backend (in registry order) that finds the registered commander live (CMDR-03, CMDR-10). */
export async function findSeat(ctx: CommanderCtx, harness: HarnessName, entry: Commander): Promise<CommanderSeat | undefined> {
  for (const b of ALL_BACKENDS) {
    const seat = await b.findCommander(ctx, harness, entry);
    if (seat) return seat;
  }
  return undefined;
}

/** The registered commanders some backend finds live, sorted by harness (`ctx.agents`: the listed agents). */
export async function liveCommanders(registry: Commanders, ctx: CommanderCtx): Promise<LiveCommander[]> {
  const out: LiveCommander[] = [];
  for (const [harness, c] of Object.entries(registry.commanders)) {
    // A kind label vx has no module for can still be live by an agent list, never by a tmux rule.
    const seat = await findSeat(ctx, harness as HarnessName, c);
    if (seat) out.push({ harness, pane: seat.pane });
  }
  return out.sort((a, b) => (a.harness < b.harness ? -1 : a.harness > b.harness ? 1 : 0));
}

/** Every agent the backends that list commanders show (herdr's `agent list`); throws when one cannot be asked. */
export async function listedAgents(deps: BackendDeps): Promise<AgentInfo[]> {
  const out: AgentInfo[] = [];
  for (const b of ALL_BACKENDS) if (b.survey.listsCommanders) out.push(...((await b.survey.backend(deps).survey([])).agents ?? []));
  return out;
}
