/**
 * Harness-reported soldier states (TMX-05, CMD-REPORT-02): `vx report` writes
 * `states/<task-id>.json` from a harness hook inside the camp; the sentinel reads the latest one
 * as a tmux soldier's status, and the tmux launch and terminal write a delivery intent under the
 * same lock. Which task a report is for is `soldiers/states.ts`'s (it needs the camp pool).
 */
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

/** The latest report for a task; undefined when none was written. A corrupt file is a StateError. */
export function readSoldierState(paths: ProjectPaths, taskId: string): SoldierState | undefined {
  return loadRecord(statePath(paths, taskId), SoldierStateSchema)?.value;
}

/** The reason in a StateError about `path`, without the path and the advice to repair it. */
function reasonOf(err: StateError): string {
  const detail = err.message.startsWith(`${err.path}: `) ? err.message.slice(err.path.length + 2) : err.message;
  return detail.split(" - ")[0];
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

/**
 * Writes the soldier's state. A corrupt state file (unparsable, empty, a directory, a link, a
 * FIFO) is replaced, not refused: it holds nothing worth keeping (the next report supersedes it
 * anyway), and refusing would wedge the task, every later report failing the same way. What is
 * not a regular file is removed first without following any link; `warn` gets one line (every
 * command passes one: a replacement is never silent).
 */
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
 * CMD-REPORT-03: a report that could not be written (a full disk) must not leave the one before
 * it standing: a stale `working` would keep the task running for good once space is back, since
 * the hook that failed never runs again. Removing needs no space. Without a report the sentinel
 * judges a running soldier from its pane (`reportedStatus`). Returns why it could not be removed.
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
export async function deliverUnderIntent(paths: ProjectPaths, taskId: string, at: string, harness: string | undefined, send: () => Promise<void>, warn?: (line: string) => void): Promise<void> {
  const intent: SoldierState = { task_id: taskId, state: "working", at, source: DELIVERING };
  writeSoldierState(paths, intent, warn);
  await send();
  underStateLock(paths, taskId, () => {
    let now: SoldierState | undefined;
    try {
      now = readSoldierState(paths, taskId);
    } catch {
      return; // replaced by something unreadable since: not our intent any more
    }
    if (now?.state !== intent.state || now.at !== intent.at || now.source !== intent.source) return;
    saveRecord(paths.root, statePath(paths, taskId), { ...intent, source: harness }, STATE_KEYS);
  });
}

/** A writeSoldierState warning as one stderr line. */
export function warnTo(out: { write(text: string): unknown }): (line: string) => void {
  return (line) => out.write(`vx: warning: ${line}\n`);
}

/**
 * At strike: the soldier's reported state and its hook files (`hooks`, the task's hooks dir) go,
 * nothing followed through a link. The strike itself has happened, so a failure is one warning.
 */
export function removeSoldierFiles(paths: ProjectPaths, taskId: string, hooks: string, warn: (line: string) => void): void {
  for (const path of [statePath(paths, taskId), hooks]) {
    try {
      removeStatePath(paths.root, path);
    } catch (err) {
      warn(`could not remove ${path}: ${errorMessage(err)}`);
    }
  }
}
