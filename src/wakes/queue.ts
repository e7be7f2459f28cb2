/**
 * The wake queues on disk (WAK-01..08): crash-safe soldier-wake commits, forum-wake merges, and
 * claims taken by atomic rename so that exactly one deliverer ever owns a wake.
 *
 * Sentinel call order for one transition (WAK-05):
 *   1. `writePendingWake(root, queue, wake)`- invisible to deliverers (`.<id>.pending`)
 *   2. guarded task save                - the task's new status is on disk
 *   3. `commitPendingWake(queue, id)`   - the wake becomes `<id>.json`
 *      or `discardPendingWake(queue, id)` when the guarded save was refused.
 * A crash anywhere leaves either nothing, or a pending file that `recoverPendingWakes` (run on
 * start and at the top of every pass, never while a transition is in flight) settles by looking
 * at the task's saved status: the wake is neither lost nor duplicated.
 */
import { linkSync, lstatSync, lutimesSync, readdirSync, renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as v from "valibot";
import { VxError, errorMessage } from "../errors";
import { readStateText, readTextIfExists, removeFile, syncDir, writeStateFile } from "../state/files";
import { renameNoReplace } from "../state/rename";
import { isSafeBaseName, isTaskId } from "../state/ids";
import type { ProjectPaths } from "../state/paths";
import { mergeForSave, parseRecord, renderState } from "../state/record";
import { type ForumWake, ForumWakeSchema, type SoldierWake, SoldierWakeSchema, type TaskStatus, keysOf } from "../state/schemas";
import { ageOf, isoTime, parseTime, realClock, scaled } from "../time";

const SOLDIER_KEYS = keysOf(SoldierWakeSchema);
const FORUM_KEYS = keysOf(ForumWakeSchema);
const PENDING_RE = /^\.([0-9a-f]{16})\.pending$/;
const CLAIMED_RE = /^(.+\.json)\.claimed-(\d+)-(\d+)$/;

let claimSeq = 0;

function isErrno(err: unknown, code: string): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === code;
}

/** Directory entries, or none when the directory does not exist. */
function entries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (isErrno(err, "ENOENT")) return [];
    throw err;
  }
}

function checkTaskId(taskId: string): string {
  if (!isTaskId(taskId)) throw new VxError(`invalid task id "${taskId}" for a wake`);
  return taskId;
}

// --- soldier wakes ---------------------------------------------------------------------------

/** `<queue>/.<task-id>.pending`: a name no deliverer lists (starts with `.`, not `.json`). */
function pendingWakePath(queueDir: string, taskId: string): string {
  return join(queueDir, `.${checkTaskId(taskId)}.pending`);
}

/** `<queue>/<task-id>.json`: the visible, deliverable wake. */
function soldierWakePath(queueDir: string, taskId: string): string {
  return join(queueDir, `${checkTaskId(taskId)}.json`);
}

/**
 * Step 1 of WAK-05: writes the wake, atomically, under its pending name. Returns that path.
 * `root` is the state root the queue lives under (no symbolic link below it is followed).
 */
export function writePendingWake(root: string, queueDir: string, wake: SoldierWake): string {
  const checked = v.safeParse(SoldierWakeSchema, wake);
  if (!checked.success) throw new VxError(`invalid soldier wake: ${checked.issues[0].message}`);
  const path = pendingWakePath(queueDir, wake.task_id);
  writeStateFile(root, path, renderState(mergeForSave(checked.output, SOLDIER_KEYS, undefined)));
  return path;
}

/**
 * Step 3 of WAK-05: makes the pending wake visible. The rename replaces an undelivered wake of
 * the same task (WAK-03: newest wins). False when there was no pending wake to commit.
 */
export function commitPendingWake(queueDir: string, taskId: string): boolean {
  try {
    renameSync(pendingWakePath(queueDir, taskId), soldierWakePath(queueDir, taskId));
    syncDir(queueDir);
    return true;
  } catch (err) {
    if (isErrno(err, "ENOENT")) return false;
    throw err;
  }
}

/** The guarded save was refused: the transition did not happen, so neither may its wake. */
export function discardPendingWake(queueDir: string, taskId: string): void {
  removeFile(pendingWakePath(queueDir, taskId));
}

/** What `recoverPendingWakes` did, by task id; `failed` ones were left for the next pass. */
type PendingRecovery = { committed: string[]; discarded: string[]; failed: { taskId: string; error: string }[] };

/**
 * Settles every leftover pending wake of a crashed transition: committed when the task's saved
 * status is the wake's `new_status` (the save happened), deleted otherwise (it did not, or the
 * task is gone). An unreadable pending file cannot be news anyone can trust, so it is deleted; a
 * `statusOf` that throws leaves the file for the next pass.
 */
export function recoverPendingWakes(queueDir: string, statusOf: (wake: SoldierWake) => TaskStatus | undefined): PendingRecovery {
  const out: PendingRecovery = { committed: [], discarded: [], failed: [] };
  for (const e of entries(queueDir)) {
    const m = e.name.match(PENDING_RE);
    if (!m || e.isDirectory()) continue;
    const taskId = m[1];
    const path = join(queueDir, e.name);
    let wake: SoldierWake | undefined;
    try {
      const text = readStateText(path);
      if (text === undefined) continue;
      wake = parseRecord(path, text, SoldierWakeSchema).value;
    } catch {
      wake = undefined;
    }
    if (!wake || wake.task_id !== taskId) {
      removeFile(path);
      out.discarded.push(taskId);
      continue;
    }
    try {
      if (statusOf(wake) === wake.new_status) {
        commitPendingWake(queueDir, taskId);
        out.committed.push(taskId);
      } else {
        discardPendingWake(queueDir, taskId);
        out.discarded.push(taskId);
      }
    } catch (err) {
      out.failed.push({ taskId, error: errorMessage(err) });
    }
  }
  return out;
}

/** Writes a visible soldier wake in one go, for writers with no task save between the steps. */
export function writeSoldierWake(root: string, queueDir: string, wake: SoldierWake): string {
  writePendingWake(root, queueDir, wake);
  commitPendingWake(queueDir, wake.task_id);
  return soldierWakePath(queueDir, wake.task_id);
}

// --- forum wakes -----------------------------------------------------------------------------

/** What a forum writer knows; `detectedAt` is epoch milliseconds. */
type ForumWakeInput = { session: string; file: string; count: number; ended: boolean; detectedAt: number };

/**
 * WAK-04: writes `wakes/forum/<session>.json`, merged with a wake already there: the earliest
 * `detected_at` is kept, `ended` is sticky, `count` is the writer's own. A corrupt existing file
 * is replaced. The forum listener is the only writer (one per user), so no lock is taken.
 */
export function writeForumWake(paths: ProjectPaths, input: ForumWakeInput): ForumWake {
  if (!isSafeBaseName(input.session)) throw new VxError(`invalid forum session "${input.session}"`);
  const path = join(paths.forumWakesDir, `${input.session}.json`);
  let next: ForumWake = {
    session: input.session,
    file: input.file,
    count: input.count,
    ended: input.ended,
    detected_at: isoTime(input.detectedAt),
  };
  let existing: ForumWake | undefined;
  try {
    const text = readStateText(path);
    if (text !== undefined) existing = parseRecord(path, text, ForumWakeSchema).value;
  } catch {
    existing = undefined;
  }
  if (existing) {
    const earlier = parseTime(existing.detected_at) < input.detectedAt;
    next = { ...next, ended: existing.ended || input.ended, detected_at: earlier ? existing.detected_at : next.detected_at };
  }
  const checked = v.safeParse(ForumWakeSchema, next);
  if (!checked.success) throw new VxError(`invalid forum wake: ${checked.issues[0].message}`);
  writeStateFile(paths.root, path, renderState(mergeForSave(checked.output, FORUM_KEYS, undefined)));
  return checked.output;
}

/** A session's pending forum wake; undefined when there is none or it cannot be read. */
export function readForumWake(paths: ProjectPaths, session: string): ForumWake | undefined {
  if (!isSafeBaseName(session)) return undefined;
  const path = join(paths.forumWakesDir, `${session}.json`);
  try {
    const text = readStateText(path);
    return text === undefined ? undefined : parseRecord(path, text, ForumWakeSchema).value;
  } catch {
    return undefined;
  }
}

// --- claims (WAK-06..08) ---------------------------------------------------------------------

/** Deliverable wake names in `dir`: regular entries ending in `.json`, sorted; directories skipped. */
export function listWakeNames(dir: string): string[] {
  return entries(dir)
    .filter((e) => e.name.endsWith(".json") && !e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** True when a queue (`wakes/` or `wakes/forum/` of `paths`) holds a deliverable wake; false when unreadable. */
export function hasPendingWakes(paths: { wakesDir: string; forumWakesDir: string }): boolean {
  try {
    return listWakeNames(paths.wakesDir).length > 0 || listWakeNames(paths.forumWakesDir).length > 0;
  } catch {
    return false;
  }
}

function claimName(name: string, pid: number): string {
  return `${name}.claimed-${pid}-${++claimSeq}`;
}

// Rename preserves the mtime of the wake file; the claim's age must start now, or another
// deliverer's dead-claim scan could take a fresh claim for an abandoned one. The link's own
// times, should a wake be a planted link: its target is never touched.
function touch(path: string, now: number): void {
  lutimesSync(path, now / 1000, now / 1000);
}

/**
 * Claims wake `name` in `dir` for `pid` by renaming it to `<name>.claimed-<pid>-<seq>` and
 * stamping its mtime with `now`. Rename has exactly one winner; undefined means someone else
 * won or the wake is gone. Returns the claimed path.
 */
export function claimWake(dir: string, name: string, pid: number = process.pid, now: number = realClock.now()): string | undefined {
  const claimed = join(dir, claimName(name, pid));
  try {
    renameSync(join(dir, name), claimed);
  } catch (err) {
    if (isErrno(err, "ENOENT")) return undefined;
    throw err;
  }
  try {
    touch(claimed, now);
  } catch (err) {
    if (isErrno(err, "ENOENT")) return undefined;
    putBackClaim(claimed);
    throw err;
  }
  return claimed;
}

/** The wake name a claimed path came from, or undefined when `path` is not a claim. */
export function claimedWakeName(claimedPath: string): string | undefined {
  return basename(claimedPath).match(CLAIMED_RE)?.[1];
}

/** `back`: renamed to its wake name; `superseded`: a newer wake existed, copy deleted; `gone`. */
type PutBack = "back" | "superseded" | "gone";

/**
 * WAK-07: returns a claimed wake to the queue, unless a newer wake of the same name arrived
 * meanwhile, in which case the claimed copy is deleted (newest wins). A no-replace rename does
 * both checks and the move in one system call, so a newer wake is never overwritten and a crash
 * never leaves the wake under two names (which could deliver it twice). Where that call is
 * missing, a hard link (which also refuses to replace) followed by an unlink stands in.
 */
export function putBackClaim(claimedPath: string): PutBack {
  const name = claimedWakeName(claimedPath);
  if (!name) throw new VxError(`${claimedPath}: not a claimed wake`);
  const target = join(dirname(claimedPath), name);
  const moved = renameNoReplace(claimedPath, target);
  if (moved === "ok") return "back";
  if (moved === "gone") return "gone";
  if (moved === "exists") {
    removeFile(claimedPath);
    return "superseded";
  }
  try {
    linkSync(claimedPath, target);
  } catch (err) {
    if (isErrno(err, "ENOENT")) return "gone";
    if (isErrno(err, "EEXIST")) {
      removeFile(claimedPath);
      return "superseded";
    }
    // A filesystem without hard links: the check-then-rename fallback.
    if (readTextIfExists(target) !== undefined) {
      removeFile(claimedPath);
      return "superseded";
    }
    try {
      renameSync(claimedPath, target);
      return "back";
    } catch (err2) {
      if (isErrno(err2, "ENOENT")) return "gone";
      throw err2;
    }
  }
  removeFile(claimedPath);
  return "back";
}

/** Deletes a delivered (or non-current) claim; already gone is fine, other failures throw. */
export function deleteClaim(claimedPath: string): void {
  removeFile(claimedPath);
}

/** How dead-claim recovery decides; `now` in epoch milliseconds. */
type DeadClaimOptions = {
  now: number;
  isLiveVx: (pid: number) => boolean | Promise<boolean>;
  /** The recovering process; defaults to this one. */
  pid?: number;
};

/**
 * WAK-08: every claim at least 2 minutes (scaled) old whose owner is not a live vx process goes
 * back to the queue. The dead claim is first re-claimed by rename, so when two deliverers
 * recover at once exactly one of them puts it back. Returns the wake names put back or dropped.
 */
export async function recoverDeadClaims(dir: string, opts: DeadClaimOptions): Promise<string[]> {
  const minAge = scaled("deadClaim");
  const alive = new Map<number, boolean>();
  const recovered: string[] = [];
  for (const e of entries(dir)) {
    const m = e.name.match(CLAIMED_RE);
    if (!m || e.isDirectory()) continue;
    const path = join(dir, e.name);
    let mtime: number;
    try {
      mtime = lstatSync(path).mtimeMs; // the claim's own time, as `touch` set it
    } catch (err) {
      if (isErrno(err, "ENOENT")) continue;
      throw err;
    }
    if (ageOf(opts.now, mtime) < minAge) continue;
    const owner = Number(m[2]);
    if (!alive.has(owner)) alive.set(owner, await opts.isLiveVx(owner));
    if (alive.get(owner)) continue;
    const mine = join(dir, claimName(m[1], opts.pid ?? process.pid));
    try {
      renameSync(path, mine);
    } catch (err) {
      if (isErrno(err, "ENOENT")) continue;
      throw err;
    }
    if (putBackClaim(mine) !== "gone") recovered.push(m[1]);
  }
  return recovered;
}
