/**
 * `<state dir>/project.json` names the project path a state dir belongs to. The sentinel walks
 * state dirs, and a project key cannot be turned back into a path, yet routing a wake to another
 * project's queue must say which project it came from (WAK-02 `origin`).
 */
import { join } from "node:path";
import { loadRecord, saveRecord } from "./record";
import { ProjectRecordSchema, SCHEMA_VERSION, keysOf } from "./schemas";
import { type ProjectPaths, projectStateDirs, stateDirPaths } from "./paths";

function projectRecordPath(stateDir: string): string {
  return join(stateDir, "project.json");
}

/** Records the project path once; later calls with the same path write nothing. */
export function ensureProjectRecord(paths: ProjectPaths): void {
  const file = projectRecordPath(paths.stateDir);
  const current = loadRecord(file, ProjectRecordSchema, true);
  if (current?.value.path === paths.project) return;
  saveRecord(paths.root, file, { schema_version: SCHEMA_VERSION, path: paths.project }, keysOf(ProjectRecordSchema));
}

/** The project path of a state dir; undefined when unrecorded or unreadable. */
export function readProjectPath(stateDir: string): string | undefined {
  try {
    return loadRecord(projectRecordPath(stateDir), ProjectRecordSchema, true)?.value.path;
  } catch {
    return undefined;
  }
}

/** Every project's state dir under `root`, with the project path its record names ("" when none). */
export function stateDirs(root: string): ProjectPaths[] {
  return projectStateDirs(root).map((stateDir) => stateDirPaths(stateDir, readProjectPath(stateDir) ?? ""));
}
