/**
 * Harness-reported soldier states (TMX-05, CMD-REPORT-01/02): `vx report` writes
 * `states/<task-id>.json` from a harness hook inside the camp; the sentinel reads the latest one
 * as a tmux soldier's status. Finding the task needs no git and no project: only the state root.
 */
import { readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { VxError } from "../errors";
import { ensureStateDir, readStateText } from "../state/files";
import { lockExclusive } from "../state/lock";
import { isTaskId } from "../state/ids";
import { type ProjectPaths, realpathOr, stateDirPaths } from "../state/paths";
import { loadRecord, saveRecord } from "../state/record";
import { type SoldierState, SoldierStateSchema, keysOf } from "../state/schemas";
import { readPool } from "../camps/pool";
import { taskPath } from "../state/tasks";

const STATE_KEYS = keysOf(SoldierStateSchema);

export function statePath(paths: ProjectPaths, taskId: string): string {
  return join(paths.statesDir, `${taskId}.json`);
}

/** The latest report for a task; undefined when none was written. A corrupt file is a StateError. */
export function readSoldierState(paths: ProjectPaths, taskId: string): SoldierState | undefined {
  return loadRecord(statePath(paths, taskId), SoldierStateSchema)?.value;
}

// Every writer of a task's state record holds this lock, so a delivery's conditional replace
// (below) never overwrites a report a harness hook wrote in between. Beside the task's op lock,
// outside states/, which the sentinel watches.
function stateLockPath(paths: ProjectPaths, taskId: string): string {
  return join(paths.tasksDir, `.${taskId}.state.lock`);
}

function underStateLock<T>(paths: ProjectPaths, taskId: string, fn: () => T): T {
  ensureStateDir(paths.root, paths.tasksDir);
  const lock = lockExclusive(stateLockPath(paths, taskId));
  try {
    return fn();
  } finally {
    lock.release();
  }
}

export function writeSoldierState(paths: ProjectPaths, state: SoldierState): void {
  underStateLock(paths, state.task_id, () => saveRecord(paths.root, statePath(paths, state.task_id), state, STATE_KEYS));
}

/**
 * The source of the `working` record vx writes before it types into a tmux soldier, replaced by
 * the harness's own once the Enter is in. A record still carrying it, on a task no command holds,
 * is a delivery that died before its Enter (issue 15): the harness waits for input, so the survey
 * reads it as idle and the sentinel settles the task instead of waiting on it forever.
 */
export const DELIVERING = "vx-delivery";

/**
 * Runs `send` (the text and its Enter, or a key) under a `working` intent record: written first, so
 * no stale report is judged while the text goes in; after `send` it becomes the harness's
 * `working`, unless a hook of the harness has reported since (then its report stands).
 */
export async function deliverUnderIntent(paths: ProjectPaths, taskId: string, at: string, harness: string | undefined, send: () => Promise<void>): Promise<void> {
  const intent: SoldierState = { task_id: taskId, state: "working", at, source: DELIVERING };
  writeSoldierState(paths, intent);
  await send();
  underStateLock(paths, taskId, () => {
    const now = readSoldierState(paths, taskId);
    if (now?.state !== intent.state || now.at !== intent.at || now.source !== intent.source) return;
    saveRecord(paths.root, statePath(paths, taskId), { ...intent, source: harness }, STATE_KEYS);
  });
}

function projectDirs(root: string): string[] {
  try {
    return readdirSync(join(root, "projects")).map((n) => join(root, "projects", n));
  } catch {
    return [];
  }
}

/** The state dir whose camps dir holds `dir`, and the slot it is in. */
function campOf(root: string, dir: string): { paths: ProjectPaths; slot: number } | undefined {
  const prefix = `${realpathOr(join(root, "projects"))}${sep}`;
  const real = realpathOr(dir);
  if (!real.startsWith(prefix)) return undefined;
  const [key, camps, slot] = real.slice(prefix.length).split(sep);
  if (!key || camps !== "camps" || !slot || !/^[1-9][0-9]*$/.test(slot)) return undefined;
  return { paths: stateDirPaths(join(root, "projects", key)), slot: Number(slot) };
}

/**
 * CMD-REPORT-01: `VX_TASK_ID` (found in whichever project holds its task file, the camp's own
 * first), else the task leasing the camp that contains `cwd`.
 */
export function reportingTask(root: string, cwd: string, envTaskId: string | undefined): { paths: ProjectPaths; taskId: string } {
  const camp = campOf(root, cwd);
  if (envTaskId) {
    if (!isTaskId(envTaskId)) throw new VxError(`report: VX_TASK_ID "${envTaskId}" is not a task id (16 lowercase hex characters)`);
    const candidates = [...(camp ? [camp.paths] : []), ...projectDirs(root).map((d) => stateDirPaths(d))];
    const found = candidates.find((p) => readStateText(taskPath(p, envTaskId)) !== undefined);
    if (found) return { paths: found, taskId: envTaskId };
    throw new VxError(`report: no task ${envTaskId} under ${root}`);
  }
  const leased = camp ? readPool(camp.paths).slots.find((s) => s.number === camp.slot)?.leased_by : undefined;
  if (camp && leased) return { paths: camp.paths, taskId: leased };
  throw new VxError(`report: not inside a vx camp (no VX_TASK_ID, and ${cwd} is not a leased camp)`);
}
