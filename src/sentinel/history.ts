/**
 * A project's history, left unread (SEN-04): a pass has no use for a local task that is neither pending nor running and
 * not a reopen candidate with a leased camp (SEN-20), so while such a task's file stays as it is the pass skips it instead
 * of reading and parsing it every poll (bench/sentinel-history.ts). A file is known by its inode, size, mtime and ctime
 * (every state write renames a new file over the old one, STA-05). A read is trusted only when the same identity was
 * already seen GUARDS.historySettled earlier: any later change is stamped at least that much after the ctime seen, so it
 * shows, even when it reuses the inode number, keeps the size and the disk's clock is not this machine's (NFS).
 * Elapsed time is real, whatever clock the pass runs on: it is the disk's timestamps that must move.
 */
import { type Stats, lstatSync } from "node:fs";
import type { Task, TaskStatus } from "../state/schemas";
import { type Clock, GUARDS, realClock } from "../time";
import { isReopenCandidate } from "./reopen";

type Print = Pick<Stats, "ino" | "size" | "mtimeMs" | "ctimeMs">;
/** `seenAt`: when this identity was first seen (monotonic); `trusted`: read when it had been seen for historySettled. */
type Known = Print & { seenAt: number; trusted: boolean; id: string; candidate: boolean };

/** Task file path → what the last pass read there; rebuilt each pass, so a file gone is forgotten. */
export type History = Map<string, Known>;

/** Where a pass's file reads stand: the last pass's history, this one's, and the clock that says how long a file stayed. */
export type HistoryPass = { prev: History; next: History; clock: Pick<Clock, "monotonic"> };

export function historyPass(prev: History, clock: Pick<Clock, "monotonic"> = realClock): HistoryPass {
  return { prev, next: new Map(), clock };
}

/** Pending (an abandoned launch is failed) and running tasks are judged every pass. */
const isLive = (status: TaskStatus) => status === "pending" || status === "running";

const same = (a: Print, b: Print) => a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

/** A task file's identity when it is seen, and when; undefined for anything but a regular file (the read reports it). */
export function look(h: HistoryPass, path: string): { st?: Stats; at: number } {
  const at = h.clock.monotonic();
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    return { st: st?.isFile() ? st : undefined, at };
  } catch {
    return { at };
  }
}

/**
 * True when the pass can leave the file unread: a trusted read of it as it is now, of a task the pass has no use for
 * while `leased` (the project's leased task ids, read at most once a pass and only when asked) does not hold it.
 * The pass keeps what it knew.
 */
export function leaveUnread(h: HistoryPass, path: string, seen: { st?: Stats }, leased: () => Set<string> | undefined): boolean {
  const known = seen.st && h.prev.get(path);
  // Never a live task: remember keeps none.
  if (!known?.trusted || !same(known, seen.st!)) return false;
  if (known.candidate && leased()?.has(known.id) !== false) return false;
  h.next.set(path, known);
  return true;
}

/** Notes a local task just read from the file `seen` before the read (a file replaced in between has a later ctime, so it shows next pass). */
export function remember(h: HistoryPass, path: string, seen: { st?: Stats; at: number }, task: Task): void {
  const st = seen.st;
  // A live task is read every pass anyway: not kept, so 5,000 running tasks cost no memory here.
  if (!st || isLive(task.status)) return;
  const before = h.prev.get(path);
  const seenAt = before && same(before, st) ? before.seenAt : seen.at;
  const { ino, size, mtimeMs, ctimeMs } = st;
  const trusted = seen.at - seenAt >= GUARDS.historySettled;
  h.next.set(path, { ino, size, mtimeMs, ctimeMs, seenAt, trusted, id: task.id, candidate: isReopenCandidate(task) });
}
