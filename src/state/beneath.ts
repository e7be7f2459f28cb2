/** Opening below a directory one O_NOFOLLOW openat at a time: a check before an open cannot stop a directory swapped for a link between the two. */
import { dlopen, FFIType } from "bun:ffi";
import { closeSync, constants, lstatSync, openSync } from "node:fs";
import { join } from "node:path";
import { kindOf } from "./files";

// Not in node's fs.constants; the fd must not reach the children camp setup starts.
const O_CLOEXEC = process.platform === "darwin" ? 0x1000000 : 0o2000000;

let libc: { openat: (dirfd: number, path: Uint8Array, flags: number) => number } | undefined;

function openat(dirfd: number, name: string, flags: number): number {
  if (!libc) {
    // No variadic mode: no flag here creates a file.
    const lib = dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", {
      openat: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    });
    libc = { openat: lib.symbols.openat as (dirfd: number, path: Uint8Array, flags: number) => number };
  }
  return libc.openat(dirfd, Buffer.from(`${name}\0`), flags | O_CLOEXEC);
}

export class BeneathError extends Error {
  constructor(
    readonly component: string,
    why: string,
  ) {
    super(why);
    this.name = "BeneathError";
  }
}

/** A read-only fd; O_NONBLOCK so a FIFO is opened, not waited on (the caller fstats it). `root` itself may be a link. */
export function openBeneath(root: string, rel: string): number {
  const parts = rel.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) throw new BeneathError(rel, "is not a plain relative path");
  let fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1;
    const next = openat(fd, part, constants.O_RDONLY | constants.O_NOFOLLOW | (last ? constants.O_NONBLOCK : constants.O_DIRECTORY));
    closeSync(fd);
    const component = parts.slice(0, i + 1).join("/");
    if (next < 0) throw new BeneathError(component, whyNot(join(root, component), last));
    fd = next;
  }
  return fd;
}

// libc's errno is not reachable here: guess from what is at the path now.
function whyNot(path: string, last: boolean): string {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return "is not there any more";
  if (st.isSymbolicLink()) return "is a link, not followed";
  if (!last && !st.isDirectory()) return `is ${kindOf(st)}, not a directory`;
  return "could not be opened (unreadable, or it changed while it was opened)";
}
