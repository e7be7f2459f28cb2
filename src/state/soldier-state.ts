/** Harness-reported soldier states (TMX-05, CMD-REPORT-02), written by `vx report` and by delivery intents under one lock. */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { StateError, errorMessage } from "../errors";
import { ensureStateDir, removeStatePath, writeStateFile } from "./files";
import { lockExclusive } from "./lock";
import type { ProjectPaths } from "./paths";
import { loadRecord, mergeForSave, renderState, saveRecord } from "./record";
import { type SoldierState, SoldierStateSchema, keysOf } from "./schemas";

const STATE_KEYS = keysOf(SoldierStateSchema);

export function statePath(paths: ProjectPaths, taskId: string): string {
  return join(paths.statesDir, `${taskId}.json`);
}

/** Undefined when none was written; a corrupt file is a StateError. */
export function readSoldierState(paths: ProjectPaths, taskId: string): SoldierState | undefined {
  return loadRecord(statePath(paths, taskId), SoldierStateSchema)?.value;
}

/** Whether a hook reported at or after `sinceMs`; a corrupt file counts as not yet (its next report replaces it). */
export function reportedSince(paths: ProjectPaths, taskId: string, sinceMs: number): boolean {
  try {
    const at = Date.parse(readSoldierState(paths, taskId)?.at ?? "");
    return at >= sinceMs;
  } catch (err) {
    if (err instanceof StateError) return false;
    throw err;
  }
}

function reasonOf(err: StateError): string {
  const detail = err.message.startsWith(`${err.path}: `) ? err.message.slice(err.path.length + 2) : err.message;
  return detail.split(" - ")[0];
}

// Held by every writer, so a delivery's conditional replace never overwrites a hook's report. Outside
// states/, which the sentinel watches.
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

/** A corrupt state file is replaced, not refused: refusing would wedge the task, every later report failing alike. Never silently: `warn`. */
export function writeSoldierState(paths: ProjectPaths, state: SoldierState, warn?: (line: string) => void): void {
  underStateLock(paths, state.task_id, () => {
    const path = statePath(paths, state.task_id);
    try {
      saveRecord(paths.root, path, state, STATE_KEYS);
      return;
    } catch (err) {
      if (!(err instanceof StateError) || err.path !== path) throw err; // a linked states dir is not ours to fix
      if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) removeStatePath(paths.root, path);
      writeStateFile(paths.root, path, renderState(mergeForSave(state, STATE_KEYS, undefined)));
      warn?.(`replaced the corrupt soldier state ${path} (${reasonOf(err)})`);
    }
  });
}

/**
 * CMD-REPORT-03: after a failed write (full disk) the previous report must go, or a stale `working` would
 * keep the task running for good. Removing needs no space. Returns why it could not be removed.
 */
export function dropStaleReport(paths: ProjectPaths, taskId: string): string | undefined {
  try {
    underStateLock(paths, taskId, () => removeStatePath(paths.root, statePath(paths, taskId)));
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}

/**
 * The source of vx's `working` record while typing into a tmux soldier. Still there on a task no command
 * holds, it is a delivery that died before its Enter: read as idle, so the task settles rather than waits forever.
 */
export const DELIVERING = "vx-delivery";

/** Written first, so no stale report is judged while the text goes in; then the harness's `working`, unless a hook reported since. */
export async function deliverUnderIntent(paths: ProjectPaths, taskId: string, at: string, harness: string | undefined, send: () => Promise<void>, warn?: (line: string) => void): Promise<void> {
  const intent: SoldierState = { task_id: taskId, state: "working", at, source: DELIVERING };
  writeSoldierState(paths, intent, warn);
  await send();
  underStateLock(paths, taskId, () => {
    let now: SoldierState | undefined;
    try {
      now = readSoldierState(paths, taskId);
    } catch {
      return; // not our intent any more
    }
    if (now?.state !== intent.state || now.at !== intent.at || now.source !== intent.source) return;
    saveRecord(paths.root, statePath(paths, taskId), { ...intent, source: harness }, STATE_KEYS);
  });
}

export function warnTo(out: { write(text: string): unknown }): (line: string) => void {
  return (line) => out.write(`vx: warning: ${line}\n`);
}

/** At strike, no link followed; the strike has happened, so a failure is only a warning. */
export function removeSoldierFiles(paths: ProjectPaths, taskId: string, hooks: string, warn: (line: string) => void): void {
  for (const path of [statePath(paths, taskId), hooks]) {
    try {
      removeStatePath(paths.root, path);
    } catch (err) {
      warn(`could not remove ${path}: ${errorMessage(err)}`);
    }
  }
}
