/** Doctor's commanders check (DOC-12): who is registered, who is live (in a herdr pane or a plain tmux pane, CMDR-10), and whether they share a queue. */
import type { AgentInfo } from "../backends/herdr-types";
import { type LiveCommander, liveCommanders, readCommanders } from "../commanders/check";
import { errorMessage } from "../errors";
import type { ProjectPaths } from "../state/paths";
import type { Commanders } from "../state/schemas";
import type { Check } from "../check";

const NAME = "commanders";

/**
 * DOC-12. `listAgents` is called at most once, and only when a commander is registered; when it
 * fails (herdr missing or down) no commander counts as live. Read-only.
 */
export async function commandersCheck(
  paths: ProjectPaths,
  listAgents: () => Promise<AgentInfo[]>,
  tmuxLive: (registry: Commanders) => Promise<LiveCommander[]> = async () => [],
): Promise<Check[]> {
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
  const live = [...liveCommanders(registry, agents), ...(await tmuxLive(registry))];
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
