/**
 * One sentinel per state root (SEN-01, SEN-02): a flock held for life; a successor waits for a stale
 * holder to retire (SEN-23). Stale: its binary changed, or its PATH (kept for life) lacks a backend's
 * program the caller's has.
 */
import { ALL_BACKENDS } from "../backends";
import type { Deps } from "../deps";
import { which } from "../exec";
import { VxError } from "../errors";
import { ensureRoot, readStateText, removeFile, writeStateFile } from "../state/files";
import { type HeldLock, isLockHeld, tryLockExclusive } from "../state/lock";
import type { Env, rootPaths } from "../state/paths";
import { foreignPidNamespace } from "../sandbox";
import { loadRecord, renderState } from "../state/record";
import { type Build, type SentinelInfo, SentinelInfoSchema } from "../state/schemas";
import { GUARDS, deadlineIn, isoTime, scaled } from "../time";
import { changeReason } from "./build";

type RootPaths = ReturnType<typeof rootPaths>;

export function readSentinelInfo(paths: RootPaths): SentinelInfo | undefined {
  try {
    return loadRecord(paths.sentinelInfo, SentinelInfoSchema)?.value;
  } catch {
    return undefined;
  }
}

/** The recorded pid; undefined when absent or unreadable (a link at its name is never read through). */
export function readSentinelPid(paths: RootPaths): number | undefined {
  let text: string | undefined;
  try {
    text = readStateText(paths.sentinelPid)?.trim();
  } catch {
    return undefined;
  }
  const pid = text ? Number(text) : Number.NaN;
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** A backend program the caller's PATH finds and the sentinel's `path` does not; undefined when none, or no PATH recorded. */
export function pathReason(path: string | undefined, callerPath: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const missing = ALL_BACKENDS.map((t) => t.program).filter((p) => which(p, callerPath ?? "") && !which(p, path));
  return missing.length ? `its PATH has no ${missing.join(" or ")}, which a newer caller's has` : undefined;
}

function staleReason(info: SentinelInfo, env?: Env): string | undefined {
  return changeReason(info.build) ?? (env ? pathReason(info.path, env.PATH) : undefined);
}

/** Whether a sentinel holds the lock, and why it is stale if it is. */
export function sentinelState(paths: RootPaths, env?: Env): { running: boolean; stale?: string; info?: SentinelInfo } {
  if (!isLockHeld(paths.sentinelLock)) return { running: false };
  const info = readSentinelInfo(paths);
  return { running: true, info, stale: info ? staleReason(info, env) : undefined };
}

type Singleton = { release(): void };

/** Takes the sentinel lock, or refuses naming the holder; a stale holder gets the retire wait. Undefined when `signal` ended the wait. */
export async function acquireSingleton(paths: RootPaths, deps: Deps, build: Build, signal?: AbortSignal): Promise<Singleton | undefined> {
  // sentinel.pid must be verifiable by all: never a pid of a sandbox's own namespace.
  const namespace = foreignPidNamespace();
  if (namespace) {
    throw new VxError(
      `a sentinel cannot run inside a sandbox (${namespace}): it would die with the command that started it, and pid ${deps.pid} means nothing outside - run 'vx sentinel' outside the sandbox`,
    );
  }
  ensureRoot(paths.root);
  const deadline = deadlineIn(deps.clock, scaled("retireWait", deps.env));
  // Stays judged stale while it retires (its sentinel.json may vanish first).
  let stalePid: number | undefined;
  let lock: HeldLock | undefined;
  // A held lock with no sentinel.json is a holder starting or retiring: look again briefly (real time) before refusing.
  const infoUntil = performance.now() + GUARDS.sentinelStart;
  for (;;) {
    lock = tryLockExclusive(paths.sentinelLock);
    if (lock) break;
    if (signal?.aborted) return undefined;
    const info = readSentinelInfo(paths);
    if (info === undefined && stalePid === undefined && performance.now() < infoUntil) {
      await deps.clock.sleep(20, signal);
      continue;
    }
    const stale = Boolean(info && staleReason(info, deps.env));
    if (info && stale) stalePid = info.pid;
    const freshHolder = info !== undefined && !stale && info.pid !== stalePid;
    if (stalePid === undefined || freshHolder || deadline.passed()) {
      // The holder writes its pid right after taking the lock; a loaded machine can be slow (real time, unscaled).
      let pid = readSentinelPid(paths) ?? info?.pid;
      const until = performance.now() + GUARDS.sentinelStart;
      while (pid === undefined && performance.now() < until) {
        await deps.clock.sleep(20);
        pid = readSentinelPid(paths);
      }
      throw new VxError(`a sentinel is already running (pid ${pid ?? "unknown"}) for ${paths.root} - not starting a second one`);
    }
    await deps.clock.sleep(scaled("retireStep", deps.env), signal);
  }
  const held = lock;
  writeStateFile(paths.root, paths.sentinelPid, `${deps.pid}\n`);
  const info: SentinelInfo = { pid: deps.pid, started_at: isoTime(deps.clock.now()), build, ...(deps.env.PATH === undefined ? {} : { path: deps.env.PATH }) };
  writeStateFile(paths.root, paths.sentinelInfo, renderState(info));
  return {
    release() {
      if (readSentinelPid(paths) === deps.pid) removeFile(paths.sentinelPid);
      if (readSentinelInfo(paths)?.pid === deps.pid) removeFile(paths.sentinelInfo);
      held.release();
    },
  };
}
