/**
 * The sentinel's build identity (sentinel.json `build`) and the binary-change check behind
 * retirement (SEN-22) and staleness (SEN-23). It compares the file, not the version, so every
 * rebuild is noticed.
 */
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

/** Why `build` no longer describes the file on disk, or undefined when it still does. */
export function changeReason(build: Build): string | undefined {
  let resolved: string;
  try {
    resolved = realpathSync(build.executable);
  } catch {
    return `${build.executable} is gone`;
  }
  if (resolved !== build.resolved) return `${build.executable} now points to ${resolved}, not ${build.resolved}`;
  const now = buildOf(build.executable, build.version);
  if (!now || now.size !== build.size || now.mod_time_unix_nano !== build.mod_time_unix_nano) {
    return `${build.resolved} was replaced on disk`;
  }
  return undefined;
}
