/** The sentinel's build identity and the binary-change check (SEN-22, SEN-23): the file, not the version, so every rebuild is noticed. */
import { realpathSync, statSync } from "node:fs";
import type { Build } from "../state/schemas";
import { VERSION } from "../version";

/** The identity of the executable at `executable` as it is on disk now; undefined when gone. */
export function buildOf(executable: string, version = VERSION): Build | undefined {
  try {
    const resolved = realpathSync(executable);
    const st = statSync(resolved, { bigint: true });
    return {
      version,
      executable,
      resolved,
      size: Number(st.size),
      // Nanoseconds exceed 2^53; both sides of every comparison go through the same Number().
      mod_time_unix_nano: Number(st.mtimeNs),
    };
  } catch {
    return undefined;
  }
}

/** Errors that say the path is gone; any other (EMFILE, ENOMEM, EIO, EACCES) says nothing about the file. */
const GONE = new Set(["ENOENT", "ENOTDIR", "ELOOP"]);

function isGone(err: unknown): boolean {
  return GONE.has((err as NodeJS.ErrnoException | undefined)?.code ?? "");
}

/** Why `build` no longer describes the file on disk; undefined when it does or cannot be told now (the next look decides). */
export function changeReason(build: Build): string | undefined {
  let resolved: string;
  let st: { size: bigint; mtimeNs: bigint };
  try {
    resolved = realpathSync(build.executable);
  } catch (err) {
    return isGone(err) ? `${build.executable} is gone` : undefined;
  }
  if (resolved !== build.resolved) return `${build.executable} now points to ${resolved}, not ${build.resolved}`;
  try {
    st = statSync(resolved, { bigint: true });
  } catch (err) {
    return isGone(err) ? `${build.resolved} was replaced on disk` : undefined;
  }
  if (Number(st.size) !== build.size || Number(st.mtimeNs) !== build.mod_time_unix_nano) return `${build.resolved} was replaced on disk`;
  return undefined;
}
