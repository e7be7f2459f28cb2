/**
 * Whether a commander is listening in a project (FOR-09): true only when a message written now reaches a
 * commander without anyone running `vx forum inbox`. Either a live, verified `vx sentinel await` reads the
 * project's queue (AWT-07, AWT-08: it hears a wake within about a second), or a registered commander is live
 * (CMDR-03, CMDR-10, doctor's test) and something delivers to it: its own hook or extension, which runs an await
 * at the end of each turn (wake kind `hook`), or else the running sentinel (CMDR-08..10).
 */
import { liveAwaiters } from "../awaiters/registry";
import type { BackendDeps } from "../backends";
import type { AgentInfo } from "../backends/agents";
import { listedAgents, liveCommanders, readCommanders } from "../commanders/check";
import { HARNESSES, type HarnessName } from "../harnesses";
import { sentinelState } from "../sentinel/singleton";
import { rootPaths } from "../state/paths";
import type { ProjectPaths } from "../state/paths";
import { GUARDS } from "../time";

export type Listening = { listening: boolean; by?: "await" | "commander"; commander?: string };

/** herdr's agent list, asked at most every 10 s (the diff stat's pace): the board renders at every change. */
export type AgentsCache = { at: number; agents?: Promise<AgentInfo[]> };

export function cachedAgents(cache: AgentsCache, deps: BackendDeps, now: number): () => Promise<AgentInfo[]> {
  return () => {
    if (!cache.agents || now - cache.at >= GUARDS.boardDiffFresh) {
      cache.at = now;
      // A backend that cannot be asked (herdr missing or down) shows nobody live.
      cache.agents = listedAgents(deps).catch(() => []);
    }
    return cache.agents;
  };
}

function delivered(harness: string, root: string, deps: BackendDeps): boolean {
  const known = HARNESSES[harness as HarnessName];
  if (known?.commander.wake.kind === "hook") return true;
  return sentinelState(rootPaths(root), deps.env).running;
}

/** `awaits`: the live verified awaits of this project's queue. An unreadable registry counts as none. */
export async function listeningIn(root: string, paths: ProjectPaths, awaits: number, deps: BackendDeps, agents: () => Promise<AgentInfo[]>): Promise<Listening> {
  if (awaits > 0) return { listening: true, by: "await" };
  try {
    const registry = readCommanders(paths);
    if (!registry || Object.keys(registry.commanders).length === 0) return { listening: false };
    for (const c of await liveCommanders(registry, { ...deps, agents: await agents() })) {
      if (delivered(c.harness, root, deps)) return { listening: true, by: "commander", commander: c.harness };
    }
  } catch {
    // below
  }
  return { listening: false };
}

/** The same rule with the project's live awaits counted here (a message being sent: asked before it is written). */
export async function listeningNow(root: string, paths: ProjectPaths, deps: BackendDeps, agents: () => Promise<AgentInfo[]>): Promise<Listening> {
  const live = await liveAwaiters(rootPaths(root).awaitersDir, deps.exec, undefined, true).catch(() => []);
  return listeningIn(root, paths, live.filter((a) => a.rec.project_key === paths.key).length, deps, agents);
}
