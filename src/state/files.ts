/**
 * Low-level file access for state: directories 0700, files 0600 (STA-04), every write atomic
 * through a dot-named temporary file in the same directory (STA-05).
 */
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { StateError, errorMessage } from "../errors";

let tmpSeq = 0;

/** mkdir -p with mode 0700 for every directory it creates. */
export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Flushes a directory's entries (a rename) to disk; best effort where directories cannot be opened. */
export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse to fsync a directory; the rename itself stays atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes `content` to `path` atomically: readers see the old file or the new one, never half.
 * The data is flushed before the rename and the rename after it, so after a power loss the file
 * is whole and a later write (a wake's commit) never reaches disk before an earlier one.
 */
export function writeAtomic(path: string, content: string, mode = 0o600, dirMode = 0o700): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: dirMode });
  // Starts with "." and ends in ".tmp" so no lister of "*.json" ever picks it up.
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${++tmpSeq}.tmp`);
  try {
    const fd = openSync(tmp, "w", mode);
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  syncDir(dir);
}

/**
 * Writes a file of the user's project: 0644, directories 0755 (they are committed and shared),
 * and through a symlink to its target (CLAUDE.md is often a link to AGENTS.md), never over it.
 */
export function writeProjectFile(path: string, content: string): void {
  let target = path;
  try {
    if (lstatSync(path).isSymbolicLink()) target = realpathSync(path);
  } catch {
    // Absent, or a dangling link: write the path itself.
  }
  writeAtomic(target, content, 0o644, 0o755);
}

/** The file's text, or undefined when it does not exist. */
export function readTextIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StateError(path, `cannot read: ${errorMessage(err)}`);
  }
}

/**
 * readTextIfExists for a state file: a symbolic link whose target is gone is not an absent file.
 * Treating it as one would let a save write a fresh record where the user put a link (STA-07:
 * corrupt is reported, never skipped).
 */
export function readStateText(path: string): string | undefined {
  const text = readTextIfExists(path);
  if (text === undefined && isSymlink(path)) {
    throw new StateError(path, "is a symbolic link to a file that does not exist - vx leaves it as it is; remove it or restore its target");
  }
  return text;
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Parses JSON text from `path`; invalid JSON is a StateError naming the file. */
export function parseJsonText(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new StateError(path, `invalid JSON (${errorMessage(err)}) - vx leaves it as it is; repair it or move it aside`);
  }
}

export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Deletes a file; a missing file is not an error. */
export function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** True when both paths exist and resolve to the same file. */
export function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
