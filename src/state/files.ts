/**
 * State file access: 0700/0600 (STA-04), atomic writes via dot-named temporaries (STA-05). No link below the
 * root is followed (a planted one would carry writes elsewhere); the root and its ancestors may be links.
 */
import { type Stats, closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { StateError, StateLinkError, VxError, errorMessage } from "../errors";
import { randomHex } from "../random";

const { O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = constants;

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** Named for the file meant: a temp file's name means nothing to a person, and write/fsync errors carry none. */
function namedFor(err: unknown, path: string): unknown {
  if (errnoOf(err) !== undefined) (err as NodeJS.ErrnoException).path = path;
  return err;
}

/**
 * The state root itself (ENV-01). Its parent, HOME, is never made: a command or sentinel that outlives a removed
 * HOME would otherwise make it again and keep state there that nobody reads.
 */
export function ensureRoot(root: string): void {
  try {
    mkdirSync(root, { mode: 0o700 });
  } catch (err) {
    // The root may be a link to a directory; a file in its place is the caller's error to report.
    if (errnoOf(err) === "EEXIST" && statSync(root, { throwIfNoEntry: false })?.isDirectory()) return;
    if (errnoOf(err) === "ENOENT") throw new VxError(missingHome(dirname(root)));
    throw err;
  }
}

/** ENV-01. */
function missingHome(home: string): string {
  return `HOME (${home}) does not exist - vx keeps its state in $HOME/.vexillum and never creates HOME itself: create it or set HOME to an existing directory`;
}

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

/** Stops at the first missing component. */
export function refuseLinks(root: string, path: string): void {
  for (const p of componentsBelow(root, path)) {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isSymbolicLink()) throw new StateLinkError(p);
  }
}

/** One component at a time: a recursive mkdir would follow a link and create directories elsewhere. */
export function ensureStateDir(root: string, dir: string): void {
  const parts = componentsBelow(root, dir);
  if (parts.length === 0) ensureRoot(root);
  for (const [i, p] of parts.entries()) {
    let st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) {
      if (i === 0) ensureRoot(root); // the root may be a link
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

/** Best effort. */
export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse; the rename stays atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const TEMP_NAME = /^\..+\.[0-9a-f]{16}\.tmp$/;

/** A user's own `.notes.tmp` never is. */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/** Unpredictable name, exclusive no-follow open: nothing planted is ever opened. Dot-named so no `*.json` lister sees it. */
export function createTemp(path: string, mode: number): { tmp: string; fd: number } {
  for (let attempt = 1; ; attempt++) {
    const tmp = join(dirname(path), `.${basename(path)}.${randomHex(8)}.tmp`);
    try {
      return { tmp, fd: openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode) };
    } catch (err) {
      if (errnoOf(err) !== "EEXIST" || attempt >= 5) throw err;
    }
  }
}

/** Data flushed before the rename and the rename after it: after a power loss the file is whole and no later write lands first. */
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

/** No link at the file or its directories: the rename would replace one, a linked directory take the file elsewhere. */
export function writeStateFile(root: string, path: string, content: string): void {
  ensureStateDir(root, dirname(path));
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) throw new StateLinkError(path);
  replaceFile(path, content, 0o600);
}

/** Only a regular file, never through a link, never blocking on a FIFO. The caller closes it. */
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

/** 0644/0755 (committed and shared), through a symlink, never over it (CLAUDE.md is often a link to AGENTS.md). */
export function writeProjectFile(path: string, content: string): void {
  let target = path;
  try {
    if (lstatSync(path).isSymbolicLink()) target = realpathSync(path);
  } catch {
    // Absent or dangling: write the path itself.
  }
  writeAtomic(target, content, 0o644, 0o755);
}

export function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a named pipe (FIFO)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

export function notRegularError(path: string, st: Stats): StateError {
  return new StateError(path, `is ${kindOf(st)}, not a regular file - vx leaves it as it is; remove it or move it aside`);
}

/** Names what is there when not a regular file (a socket gives ENXIO). */
function openError(path: string, err: unknown, what: "read" | "append to"): StateError {
  let st: Stats | undefined;
  try {
    st = lstatSync(path);
  } catch {
    // The open's own error says it.
  }
  if (st && !st.isFile() && !st.isSymbolicLink()) return notRegularError(path, st);
  return new StateError(path, `cannot ${what}: ${errorMessage(err)}`);
}

/** Never blocks (a planted FIFO would hang vx, the sentinel included); only a regular file. */
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

/** The one reader of every file vx parses; unreadable is a StateError naming it. */
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

/** A project file; links followed (CLAUDE.md is often one). */
export function readTextIfExists(path: string): string | undefined {
  return readRegular(path, true);
}

/** Never through a link, even dangling: taken as absent, a save would write where the user put a link (STA-07). */
export function readStateText(path: string): string | undefined {
  return readRegular(path, false);
}

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

/** Missing is not an error. */
export function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** Whatever it is, following no link; a linked directory above it is refused. Absent is not an error. */
export function removeStatePath(root: string, path: string): void {
  refuseLinks(root, dirname(path));
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isDirectory()) rmSync(path, { recursive: true, force: true });
  else removeFile(path);
}

export function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
