/**
 * What drain and await share: the AWT-01 no-op conditions, checked before anything is read or
 * claimed, and the lookups the currency filter needs.
 */
import { ALL_BACKENDS } from "../backends";
import type { Deps } from "../deps";
import { loadConfig } from "../project";
import { type ProjectPaths, gitToplevel, isUnder, projectPaths, stateRoot } from "../state/paths";
import type { QueueDirs } from "../wakes/deliver";

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
