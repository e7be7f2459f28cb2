/** `<state dir>/project.json`: a project key cannot be turned back into a path, yet a routed wake must name its `origin` (WAK-02). */
import { join } from "node:path";
import { loadRecord, saveRecord } from "./record";
import { ProjectRecordSchema, SCHEMA_VERSION, keysOf } from "./schemas";
import { type ProjectPaths, projectStateDirs, stateDirPaths } from "./paths";

function projectRecordPath(stateDir: string): string {
  return join(stateDir, "project.json");
}

/** Later calls with the same path write nothing. */
export function ensureProjectRecord(paths: ProjectPaths): void {
  const file = projectRecordPath(paths.stateDir);
  const current = loadRecord(file, ProjectRecordSchema, true);
  if (current?.value.path === paths.project) return;
  saveRecord(paths.root, file, { schema_version: SCHEMA_VERSION, path: paths.project }, keysOf(ProjectRecordSchema));
}

export function readProjectPath(stateDir: string): string | undefined {
  try {
    return loadRecord(projectRecordPath(stateDir), ProjectRecordSchema, true)?.value.path;
  } catch {
    return undefined;
  }
}

/** Project path "" when none is recorded. */
export function stateDirs(root: string): ProjectPaths[] {
  return projectStateDirs(root).map((stateDir) => stateDirPaths(stateDir, readProjectPath(stateDir) ?? ""));
}
