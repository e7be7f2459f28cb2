import { ALL_BACKENDS } from "../backends";
import { isLanded } from "../camps/git";
import type { Deps } from "../deps";
import { isLiveVx } from "../procs";
import { loadConfig } from "../project";
import { type ProjectPaths, gitToplevel, isUnder, projectPaths, stateRoot } from "../state/paths";
import { leasedIn, loadTaskIn } from "../wakes/currency";
import type { DeliverDeps, QueueDirs } from "../wakes/deliver";

type AwaitProject = { root: string; paths: ProjectPaths; queue: QueueDirs };

/** Undefined when there is nothing to deliver here. */
export async function deliveryProject(deps: Deps): Promise<AwaitProject | undefined> {
  const root = stateRoot(deps.env);
  if (isUnder(deps.cwd, root)) return undefined;
  const top = await gitToplevel(deps.cwd, deps.exec, deps.env);
  if (!top || isUnder(top, root)) return undefined;
  if (!ALL_BACKENDS.some((b) => b.commanderHere(deps.env, () => configuredBackend(top) === b.name))) return undefined;
  const paths = projectPaths(root, top);
  return {
    root,
    paths,
    queue: { stateDir: paths.stateDir, wakesDir: paths.wakesDir, forumWakesDir: paths.forumWakesDir, forumInboxDir: paths.forumInboxDir },
  };
}

function configuredBackend(top: string): string | undefined {
  try {
    return loadConfig(top)?.backend;
  } catch {
    return undefined;
  }
}

export function deliverDeps(deps: Deps, root: string): DeliverDeps {
  return {
    clock: deps.clock,
    pid: deps.pid,
    isLiveVx: (pid) => isLiveVx(pid, deps.exec),
    currency: {
      root,
      loadTask: loadTaskIn,
      leased: leasedIn,
      isLanded: (t) => (t.camp_path && t.camp_base ? isLanded(t.camp_path, t.camp_base, deps.exec) : undefined),
    },
  };
}
