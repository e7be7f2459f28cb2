/**
 * A project's history, left unread (SEN-04): a pass has no use for a local task that is neither pending nor running and
 * not a reopen candidate with a leased camp (SEN-20), so while such a task's file stays as it is the pass skips it instead
 * of reading and parsing it every poll (bench/sentinel-history.ts). A file is known by its inode, size, mtime and ctime:
 * every state write is a temporary file renamed over the old one (STA-05), so a new version is a new inode. Only a file
 * whose ctime is GUARDS.historySettled behind the kernel's clock is remembered, so a write within the same timestamp tick
 * on a reused inode cannot pass for the version read.
 */
import { type Stats, lstatSync } from "node:fs";
import type { Task, TaskStatus } from "../state/schemas";
import { GUARDS, realClock } from "../time";
import { isReopenCandidate } from "./reopen";

type Print = Pick<Stats, "ino" | "size" | "mtimeMs" | "ctimeMs">;
type Known = Print & { id: string; status: TaskStatus; candidate: boolean };

/** Task file path → what the last pass read there; rebuilt each pass, so a file gone is forgotten. */
export type History = Map<string, Known>;

/** A file's identity for this purpose; undefined for anything but a regular file (the read reports it). */
export function fileStat(path: string): Stats | undefined {
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    return st?.isFile() ? st : undefined;
  } catch {
    return undefined;
  }
}

/** Pending (an abandoned launch is failed, SEN-04) and running tasks are judged every pass. */
const isLive = (status: TaskStatus) => status === "pending" || status === "running";

const same = (a: Print, b: Print) => a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

/**
 * What `prev` knows of the file at `path` as it is now, when the pass can leave it unread: unchanged, and of no use while
 * `leased` (read at most once per project, only when asked) does not hold it.
 */
export function unreadKnown(prev: History, path: string, st: Stats | undefined, leased: () => Set<string> | undefined): Known | undefined {
  const known = st && prev.get(path);
  if (!known || !same(known, st)) return undefined;
  if (isLive(known.status)) return undefined;
  if (known.candidate && leased()?.has(known.id) !== false) return undefined;
  return known;
}

/**
 * Remembers a local task just read from a file of stat `st` (taken before the read: a file replaced in between has a new
 * inode, so the next pass reads it again). `fsNow` is the kernel's wall clock, which stamps the file, whatever clock the pass runs on.
 */
export function remember(next: History, path: string, st: Stats | undefined, task: Task, fsNow: number = realClock.now()): void {
  // A live task is read every pass anyway: not kept, so 5,000 running tasks cost no memory here.
  if (!st || isLive(task.status) || fsNow - st.ctimeMs < GUARDS.historySettled) return;
  const { ino, size, mtimeMs, ctimeMs } = st;
  next.set(path, { ino, size, mtimeMs, ctimeMs, id: task.id, status: task.status, candidate: isReopenCandidate(task) });
}
