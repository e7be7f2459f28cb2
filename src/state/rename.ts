/** Rename that never replaces, in one system call: a put-back wake must not overwrite a newer one nor, dying halfway, leave two names (as link-then-unlink would). */
import { dlopen, FFIType, ptr, read } from "bun:ffi";

type Native = { rename(from: Uint8Array, to: Uint8Array): number; errno(): number };

let native: Native | null | undefined;

function load(): Native | null {
  if (native !== undefined) return native;
  try {
    if (process.platform === "darwin") {
      const lib = dlopen("libSystem.B.dylib", {
        renamex_np: { args: [FFIType.ptr, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
        __error: { args: [], returns: FFIType.ptr },
      });
      native = {
        rename: (a, b) => lib.symbols.renamex_np(ptr(a), ptr(b), 0x4) as number,
        errno: () => read.i32(lib.symbols.__error() as never, 0),
      };
    } else {
      const lib = dlopen("libc.so.6", {
        renameat2: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
        __errno_location: { args: [], returns: FFIType.ptr },
      });
      const AT_FDCWD = -100;
      native = {
        rename: (a, b) => lib.symbols.renameat2(AT_FDCWD, ptr(a), AT_FDCWD, ptr(b), 1) as number,
        errno: () => read.i32(lib.symbols.__errno_location() as never, 0),
      };
    }
  } catch {
    native = null;
  }
  return native;
}

const cString = (s: string) => new TextEncoder().encode(`${s}\0`);

const ENOENT = 2;
const EEXIST = 17;

/** `unsupported`: no such system call here (the caller falls back). */
export function renameNoReplace(from: string, to: string): "ok" | "exists" | "gone" | "unsupported" {
  const n = load();
  if (!n) return "unsupported";
  if (n.rename(cString(from), cString(to)) === 0) return "ok";
  const errno = n.errno();
  if (errno === EEXIST) return "exists";
  if (errno === ENOENT) return "gone";
  return "unsupported";
}
