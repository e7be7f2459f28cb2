/**
 * Which registered commanders are live (CMDR-03), and doctor's `commanders` check (DOC-12). A
 * commander is live when one `herdr agent list` shows an agent of its kind in its pane.
 */
import type { AgentInfo } from "../backends/herdr-types";
import type { Check } from "../doctor/report";
import { HARNESSES, HARNESS_NAMES, type HarnessName } from "../harnesses";
import { errorMessage } from "../errors";
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
    .filter(([harness, c]) => agents.some((a) => a.pane_id === c.herdr_pane_id && a.agent === harness))
    .map(([harness, c]) => ({ harness, pane: c.herdr_pane_id }))
    .sort((a, b) => (a.harness < b.harness ? -1 : a.harness > b.harness ? 1 : 0));
}

const NAME = "commanders";

/**
 * DOC-12. `listAgents` is called at most once, and only when a commander is registered; when it
 * fails (herdr missing or down) no commander counts as live. Read-only.
 */
export async function commandersCheck(paths: ProjectPaths, listAgents: () => Promise<AgentInfo[]>): Promise<Check[]> {
  let registry: Commanders | undefined;
  try {
    registry = readCommanders(paths);
  } catch (err) {
    return [{ status: "warn", name: NAME, detail: errorMessage(err) }];
  }
  const registered = Object.keys(registry?.commanders ?? {}).sort();
  if (!registry || registered.length === 0) return [{ status: "ok", name: NAME, detail: "none registered" }];
  let agents: AgentInfo[] = [];
  try {
    agents = await listAgents();
  } catch {
    // Unreachable herdr: nobody can be shown live.
  }
  const live = liveCommanders(registry, agents);
  if (live.length === 0) return [{ status: "ok", name: NAME, detail: `none live (registered: ${registered.join(", ")})` }];
  if (live.length === 1) return [{ status: "ok", name: NAME, detail: `${live[0].harness} live in pane ${live[0].pane}` }];
  return [
    {
      status: "warn",
      name: "commanders share one wake queue",
      detail: `${live.length} commanders are live in this project (${live.map((c) => c.harness).join(", ")}) and a wake is delivered once, to whichever asks first, so the others never hear of that soldier or that forum message; keep one commander per project (the others can catch up with vx status and vx forum inbox)`,
    },
  ];
}
