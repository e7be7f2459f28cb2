/** flock through libc: the kernel drops it when its holder dies, so a crash never leaves a stale claim. */
import { dlopen, FFIType } from "bun:ffi";
import { type Stats, closeSync, constants, fstatSync, lstatSync, openSync } from "node:fs";
import { StateError, StateLinkError } from "../errors";
import { notRegularError } from "./files";

const LOCK_SH = 1;
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;

let libc: { flock: (fd: number, op: number) => number } | undefined;

function flock(fd: number, op: number): number {
  if (!libc) {
    const lib = dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", {
      flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    });
    libc = { flock: lib.symbols.flock as (fd: number, op: number) => number };
  }
  return libc.flock(fd, op);
}

/** `release` is idempotent. */
export type HeldLock = { path: string; fd: number; release(): void };

// A second open in this process would deadlock against the first (flock is per open file description).
const heldHere = new Set<string>();

/** Never through a link (a planted one would have vx create a file wherever it points), never waiting on a FIFO; only a regular file. */
function openLockFile(path: string, flags: number): number {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOOP") throw new StateLinkError(path);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st && !st.isFile()) throw notRegularError(path, st);
    throw err;
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw notRegularError(path, st);
  }
  return fd;
}

function open(path: string): number {
  return openLockFile(path, constants.O_WRONLY | constants.O_CREAT);
}

function held(path: string, fd: number): HeldLock {
  heldHere.add(path);
  let released = false;
  return {
    path,
    fd,
    release() {
      if (released) return;
      released = true;
      heldHere.delete(path);
      flock(fd, LOCK_UN);
      closeSync(fd);
    },
  };
}

export function lockExclusive(path: string): HeldLock {
  if (heldHere.has(path)) throw new Error(`lock ${path} is already held by this process`);
  const fd = open(path);
  if (flock(fd, LOCK_EX) !== 0) {
    closeSync(fd);
    throw new Error(`could not lock ${path}`);
  }
  return held(path, fd);
}

/** Never blocks. */
export function tryLockExclusive(path: string): HeldLock | undefined {
  if (heldHere.has(path)) return undefined;
  const fd = open(path);
  if (flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    closeSync(fd);
    return undefined;
  }
  return held(path, fd);
}

/**
 * False when nothing is at `path`: most probed locks were never taken, and an lstat says so without the open's thrown
 * ENOENT (a third of a pass at 1,000 tasks). A link or non-regular file is refused as the open would refuse it.
 */
function mayBeHeld(path: string): boolean {
  let st: Stats | undefined;
  try {
    st = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return true; // the open decides, as it did before this check
  }
  if (!st) return false;
  if (st.isSymbolicLink()) throw new StateLinkError(path);
  if (!st.isFile()) throw notRegularError(path, st);
  return true;
}

/** A shared non-blocking probe. A link or non-regular file is a StateError, not "nobody holds it". */
export function isLockHeld(path: string): boolean {
  if (heldHere.has(path)) return true;
  if (!mayBeHeld(path)) return false;
  // Opened no-follow and checked again: the file may have been swapped since the lstat.
  let fd: number;
  try {
    fd = openLockFile(path, constants.O_RDONLY);
  } catch (err) {
    if (err instanceof StateError) throw err; // a link or a FIFO at its name: reported, not "free"
    return false;
  }
  try {
    if (flock(fd, LOCK_SH | LOCK_NB) !== 0) return true;
    flock(fd, LOCK_UN);
    return false;
  } finally {
    closeSync(fd);
  }
}

export async function withLock<T>(path: string, fn: () => T | Promise<T>): Promise<T> {
  const lock = lockExclusive(path);
  try {
    return await fn();
  } finally {
    lock.release();
  }
}
