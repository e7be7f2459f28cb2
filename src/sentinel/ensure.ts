/**
 * SEN-23 ensure-running: when no sentinel holds the lock, or the holder's binary changed on disk,
 * start `<own executable> sentinel` detached in a new session with its output appended to
 * sentinel.log. A start failure never fails the caller.
 */
import { closeSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import { ensureDir, writeAtomic } from "../state/files";
import { rootPaths } from "../state/paths";
import { scaled } from "../time";
import { sentinelState } from "./singleton";

function startedWithin(marker: string, since: number): boolean {
  try {
    return statSync(marker).mtimeMs >= since;
  } catch {
    return false;
  }
}

export type EnsureResult = { started?: number; error?: string };

export function ensureSentinel(deps: Deps, root: string, opts: { quiet?: boolean } = {}): EnsureResult {
  const paths = rootPaths(root);
  try {
    const state = sentinelState(paths);
    if (state.running && !state.stale) return {};
    // A successor waits up to the retire wait for a stale holder to let go: one is enough, however
    // many awaits poll meanwhile.
    const marker = join(root, ".sentinel-successor");
    if (state.running && startedWithin(marker, deps.clock.now() - scaled("retireWait", deps.env))) return {};
    ensureDir(root);
    const fd = openSync(paths.sentinelLog, "a", 0o600);
    let pid: number;
    try {
      const proc = Bun.spawn([...deps.self, "sentinel"], {
        cwd: root,
        env: deps.env as Record<string, string>,
        stdin: "ignore",
        stdout: fd,
        stderr: fd,
        detached: true,
      });
      proc.unref();
      pid = proc.pid;
    } finally {
      closeSync(fd);
    }
    if (state.running) writeAtomic(marker, `${pid}\n`);
    if (!opts.quiet) deps.stderr.write(`vx: auto-started sentinel (pid ${pid}), logging to ${paths.sentinelLog}\n`);
    return { started: pid };
  } catch (err) {
    const error = errorMessage(err);
    if (!opts.quiet) {
      deps.stderr.write(`vx: warning: could not auto-start the sentinel: ${error} - run 'vx sentinel' yourself in the background\n`);
    }
    return { error };
  }
}
