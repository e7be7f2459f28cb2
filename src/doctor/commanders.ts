/** Doctor's commanders check (DOC-12): who is registered, who is live (as the backend of its pane finds it, CMDR-03, CMDR-10), and whether they share a queue. */
import type { BackendDeps } from "../backends";
import type { AgentInfo } from "../backends/agents";
import { liveCommanders, readCommanders } from "../commanders/check";
import { errorMessage } from "../errors";
import type { ProjectPaths } from "../state/paths";
import type { Commanders } from "../state/schemas";
import type { Check } from "../check";

const NAME = "commanders";

/** DOC-12: `listAgents` at most once, only when a commander is registered; when it fails none is live by an agent list. */
export async function commandersCheck(paths: ProjectPaths, listAgents: () => Promise<AgentInfo[]>, deps: BackendDeps): Promise<Check[]> {
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
    // An agent list that cannot be had (herdr missing or down): nobody can be shown live by it.
  }
  const live = await liveCommanders(registry, { ...deps, agents });
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
