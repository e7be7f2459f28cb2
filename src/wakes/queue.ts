/**
 * The wake queues on disk (WAK-01..08); claims by atomic rename, so one deliverer owns a wake.
 * A transition (WAK-05): write pending, guarded task save, then commit (or discard if refused). A crash
 * leaves at most a pending file that `recoverPendingWakes` settles from the task's saved status.
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

/** A name no deliverer lists. */
function pendingWakePath(queueDir: string, taskId: string): string {
  return join(queueDir, `.${checkTaskId(taskId)}.pending`);
}

function soldierWakePath(queueDir: string, taskId: string): string {
  return join(queueDir, `${checkTaskId(taskId)}.json`);
}

/** Step 1 of WAK-05. No symbolic link below `root` is followed. */
export function writePendingWake(root: string, queueDir: string, wake: SoldierWake): string {
  const checked = v.safeParse(SoldierWakeSchema, wake);
  if (!checked.success) throw new VxError(`invalid soldier wake: ${checked.issues[0].message}`);
  const path = pendingWakePath(queueDir, wake.task_id);
  writeStateFile(root, path, renderState(mergeForSave(checked.output, SOLDIER_KEYS, undefined)));
  return path;
}

/** Step 3 of WAK-05: replaces an undelivered wake of the task (WAK-03: newest wins); false when none was pending. */
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

/** The guarded save was refused, so the wake must not happen either. */
export function discardPendingWake(queueDir: string, taskId: string): void {
  removeFile(pendingWakePath(queueDir, taskId));
}

type PendingRecovery = { committed: string[]; discarded: string[]; failed: { taskId: string; error: string }[] };

/** Commits a crashed transition's pending wake when the task's saved status matches, else deletes it; a throwing `statusOf` leaves it for the next pass. */
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

/** For writers with no task save between the steps. */
export function writeSoldierWake(root: string, queueDir: string, wake: SoldierWake): string {
  writePendingWake(root, queueDir, wake);
  commitPendingWake(queueDir, wake.task_id);
  return soldierWakePath(queueDir, wake.task_id);
}

// --- forum wakes -----------------------------------------------------------------------------

/** `detectedAt` in epoch milliseconds. */
type ForumWakeInput = { session: string; file: string; count: number; ended: boolean; detectedAt: number };

/** WAK-04: merged with any existing wake. No lock: the forum listener is the only writer. */
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

export function listWakeNames(dir: string): string[] {
  return entries(dir)
    .filter((e) => e.name.endsWith(".json") && !e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** False when unreadable. */
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

// Rename keeps the wake's mtime; the claim's age must start now or a dead-claim scan could take it.
// The link's own times: a planted link's target is never touched.
function touch(path: string, now: number): void {
  lutimesSync(path, now / 1000, now / 1000);
}

/** Rename has exactly one winner; undefined when someone else won or the wake is gone. */
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

export function claimedWakeName(claimedPath: string): string | undefined {
  return basename(claimedPath).match(CLAIMED_RE)?.[1];
}

/** `back`: renamed to its wake name; `superseded`: a newer wake existed, copy deleted; `gone`. */
type PutBack = "back" | "superseded" | "gone";

/**
 * WAK-07: back to the queue unless a newer wake took the name (newest wins). A no-replace rename neither
 * overwrites that nor leaves the wake under two names (a double delivery); lacking it, link-then-unlink.
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

export function deleteClaim(claimedPath: string): void {
  removeFile(claimedPath);
}

type DeadClaimOptions = {
  now: number;
  isLiveVx: (pid: number) => boolean | Promise<boolean>;
  pid?: number;
};

/** WAK-08: old claims of dead owners go back; re-claimed by rename first, so of two recoverers exactly one puts it back. */
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
