/**
 * Low-level file access for state: directories 0700, files 0600 (STA-04), every write atomic
 * through a dot-named temporary file in the same directory (STA-05).
 *
 * Nothing under the state root is read or written through a symbolic link (StateLinkError): a
 * link planted there would carry vx's writes elsewhere. The root itself may be a link (a state
 * root kept on another disk), and so may its ancestors (`/tmp` on macOS); only the components
 * below it are refused.
 */
import { randomBytes } from "node:crypto";
import { type Stats, closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { StateError, StateLinkError, errorMessage } from "../errors";

const { O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = constants;

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * A failed write named for `path`, the file meant: a temp file's name means nothing to a person,
 * and `write` and `fsync` errors carry no name at all (`storageRefusal` says which file was full).
 */
function namedFor(err: unknown, path: string): unknown {
  if (errnoOf(err) !== undefined) (err as NodeJS.ErrnoException).path = path;
  return err;
}

/** mkdir -p with mode 0700 for every directory it creates; for the state root itself or outside it. */
export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Each path from just below `root` down to `path`, outermost first. */
function componentsBelow(root: string, path: string): string[] {
  const rel = relative(root, path);
  if (rel === "") return [];
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new Error(`${path} is not under the state root ${root}`);
  const out: string[] = [];
  let cur = root;
  for (const part of rel.split(sep)) {
    cur = join(cur, part);
    out.push(cur);
  }
  return out;
}

/** Refuses a symbolic link at any component of `path` below `root`; stops at the first one missing. */
export function refuseLinks(root: string, path: string): void {
  for (const p of componentsBelow(root, path)) {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isSymbolicLink()) throw new StateLinkError(p);
  }
}

/**
 * mkdir -p of a state directory, one component at a time below `root` (0700 each), refusing any
 * that is a symbolic link: a recursive mkdir would follow one and create directories elsewhere.
 */
export function ensureStateDir(root: string, dir: string): void {
  const parts = componentsBelow(root, dir);
  if (parts.length === 0) ensureDir(root);
  for (const [i, p] of parts.entries()) {
    let st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) {
      if (i === 0) ensureDir(root); // a state root not made yet (the root may be a link)
      try {
        mkdirSync(p, { mode: 0o700 });
        continue;
      } catch (err) {
        if (errnoOf(err) !== "EEXIST") throw err;
        st = lstatSync(p);
      }
    }
    if (st.isSymbolicLink()) throw new StateLinkError(p);
  }
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

const TEMP_NAME = /^\..+\.[0-9a-f]{16}\.tmp$/;

/** Whether `name` is one createTemp makes (a user's own `.notes.tmp` never is). */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/**
 * A new temporary file next to `path`, opened for writing. The name is unpredictable and the open
 * exclusive and no-follow, so a file or link planted under a name vx would pick is never opened.
 * It starts with "." and ends in ".tmp" so no lister of "*.json" ever picks it up.
 */
export function createTemp(path: string, mode: number): { tmp: string; fd: number } {
  for (let attempt = 1; ; attempt++) {
    const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString("hex")}.tmp`);
    try {
      return { tmp, fd: openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode) };
    } catch (err) {
      if (errnoOf(err) !== "EEXIST" || attempt >= 5) throw err;
    }
  }
}

/**
 * Writes `content` to `path` atomically: readers see the old file or the new one, never half.
 * The data is flushed before the rename and the rename after it, so after a power loss the file
 * is whole and a later write (a wake's commit) never reaches disk before an earlier one.
 */
export function writeAtomic(path: string, content: string, mode = 0o600, dirMode = 0o700): void {
  mkdirSync(dirname(path), { recursive: true, mode: dirMode });
  replaceFile(path, content, mode);
}

function replaceFile(path: string, content: string, mode: number): void {
  let made: ReturnType<typeof createTemp>;
  try {
    made = createTemp(path, mode);
  } catch (err) {
    throw namedFor(err, path);
  }
  const { tmp, fd } = made;
  try {
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw namedFor(err, path);
  }
  syncDir(dirname(path));
}

/**
 * writeAtomic for a state file under `root`: its directories are made or checked one by one, and
 * neither they nor the file may be a symbolic link (the rename would replace a link the user put
 * there, and a linked directory would take the file elsewhere).
 */
export function writeStateFile(root: string, path: string, content: string): void {
  ensureStateDir(root, dirname(path));
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) throw new StateLinkError(path);
  replaceFile(path, content, 0o600);
}

/**
 * Opens a state file for appending (a log), creating it 0600; a symbolic link at its name is
 * refused, never followed, and so is anything but a regular file (the open does not block on a
 * FIFO). The caller closes the descriptor.
 */
export function openStateAppend(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK, 0o600);
  } catch (err) {
    if (errnoOf(err) === "ELOOP") throw new StateLinkError(path);
    if (errnoOf(err) === "ENXIO") throw openError(path, err, "append to");
    throw err;
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw notRegularError(path, st);
  }
  return fd;
}

/** Appends `text` to a state file (see openStateAppend). */
export function appendStateText(path: string, text: string): void {
  const fd = openStateAppend(path);
  try {
    writeSync(fd, text);
  } catch (err) {
    throw namedFor(err, path);
  } finally {
    closeSync(fd);
  }
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

/** What a file that is not a regular one is, for a message. */
export function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a named pipe (FIFO)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

/** The refusal of a file vx would read or append to that is not a regular file. */
export function notRegularError(path: string, st: Stats): StateError {
  return new StateError(path, `is ${kindOf(st)}, not a regular file - vx leaves it as it is; remove it or move it aside`);
}

/** A failed open, naming what is there when it is not a regular file (a socket cannot be opened: ENXIO). */
function openError(path: string, err: unknown, what: "read" | "append to"): StateError {
  let st: Stats | undefined;
  try {
    st = lstatSync(path);
  } catch {
    // Gone or unreachable: the open's own error says it.
  }
  if (st && !st.isFile() && !st.isSymbolicLink()) return notRegularError(path, st);
  return new StateError(path, `cannot ${what}: ${errorMessage(err)}`);
}

/**
 * Opens `path` for reading, or undefined when it does not exist. The open never blocks (a FIFO
 * planted at a file's name would otherwise hang vx, the sentinel included, until a writer came)
 * and anything but a regular file is refused. `follow` false refuses a symbolic link at the name.
 */
function openRegular(path: string, follow: boolean): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return undefined;
    if (errnoOf(err) === "ELOOP" && !follow) throw new StateLinkError(path);
    throw openError(path, err, "read");
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegularError(path, st);
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * The one reader of every file vx parses (state files and the project's own): its text, or
 * undefined when it does not exist; a file that cannot be read is a StateError naming it.
 */
function readRegular(path: string, follow: boolean): string | undefined {
  const fd = openRegular(path, follow);
  if (fd === undefined) return undefined;
  try {
    return readFileSync(fd, "utf8");
  } catch (err) {
    throw new StateError(path, `cannot read: ${errorMessage(err)}`);
  } finally {
    closeSync(fd);
  }
}

/** A file of the project (links followed: CLAUDE.md is often one): its text, or undefined when absent. */
export function readTextIfExists(path: string): string | undefined {
  return readRegular(path, true);
}

/**
 * readTextIfExists for a state file, never through a symbolic link at its name, live or dangling:
 * a dangling one taken as absent would let a save write a fresh record where the user put a link
 * (STA-07: corrupt is reported, never skipped). The no-follow open costs no extra system call.
 */
export function readStateText(path: string): string | undefined {
  return readRegular(path, false);
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

/**
 * Removes a state file or directory under `root`, whatever it is, following no link: a link at
 * `path` is unlinked, a directory removed with the links inside it (never what they point to),
 * and a linked directory above `path` refused (StateLinkError). Absent is not an error.
 */
export function removeStatePath(root: string, path: string): void {
  refuseLinks(root, dirname(path));
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isDirectory()) rmSync(path, { recursive: true, force: true });
  else removeFile(path);
}

/** True when both paths exist and resolve to the same file. */
export function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
