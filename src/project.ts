// Opening a project: state root, camp refusal (STA-08), toplevel and key (STA-03), initialized check (CLI-03).
import { join } from "node:path";
import type { Deps } from "./deps";
import { VxError } from "./errors";
import { type ProjectPaths, gitToplevel, projectPaths, refuseInsideCamp, stateRoot } from "./state/paths";
import { loadRecord } from "./state/record";
import { type ProjectConfig, ProjectConfigSchema } from "./state/schemas";

export type Project = {
  root: string;
  paths: ProjectPaths;
  config: ProjectConfig;
};

export function configPath(projectDir: string): string {
  return join(projectDir, ".vexillum", "config.json");
}

/** The state root, the project's toplevel, refusing inside a camp; no initialized check. */
export async function locateProject(deps: Deps): Promise<{ root: string; top: string }> {
  const root = stateRoot(deps.env);
  refuseInsideCamp(deps.cwd, root);
  const top = await gitToplevel(deps.cwd, deps.exec, deps.env);
  if (!top) throw new VxError("current directory is not a git repository - run vx from inside your project's git checkout");
  refuseInsideCamp(top, root);
  return { root, top };
}

export function loadConfig(top: string): ProjectConfig | undefined {
  return loadRecord(configPath(top), ProjectConfigSchema)?.value;
}

/** A project command's context; refuses when the project is not initialized. */
export async function openProject(deps: Deps): Promise<Project> {
  const { root, top } = await locateProject(deps);
  const config = loadConfig(top);
  if (!config) throw new VxError("project not initialized, run 'vx init' first");
  return { root, paths: projectPaths(root, top), config };
}
