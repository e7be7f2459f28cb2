/** SEN-23 ensure-running: start a detached sentinel when none holds the lock or the holder is stale; a failure never fails the caller. */
import { closeSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import { isAlive } from "../procs";
import { foreignPidNamespace } from "../sandbox";
import { ensureRoot, openStateAppend, readStateText, writeStateFile } from "../state/files";
import { rootPaths } from "../state/paths";
import { GUARDS, ageOf, scaled } from "../time";
import { readSentinelInfo, readSentinelPid, sentinelState } from "./singleton";

/** Where a command that started a successor over a stale holder says so: its pid, then why. */
function successorMarker(root: string): string {
  return join(root, ".sentinel-successor");
}

/** Why the sentinel `self`, started at `since`, should give way to a later-started successor; undefined when none waits. */
export function successorWaiting(root: string, self: number, since: number): string | undefined {
  const marker = successorMarker(root);
  if (!writtenSince(marker, since)) return undefined;
  let text: string | undefined;
  try {
    text = readStateText(marker);
  } catch {
    return undefined;
  }
  const [pidLine, reason] = (text ?? "").split("\n");
  const pid = Number(pidLine);
  if (!Number.isSafeInteger(pid) || pid <= 1 || pid === self || !isAlive(pid)) return undefined;
  return reason ? `a successor (pid ${pid}) was started because ${reason}` : `a successor (pid ${pid}) was started`;
}

function writtenSince(marker: string, since: number): boolean {
  try {
    return statSync(marker).mtimeMs >= since;
  } catch {
    return false;
  }
}

/** Whether `marker` was written within `ms` before `now` (one from the future was not: TIME-02). */
function startedWithin(marker: string, now: number, ms: number): boolean {
  try {
    return ageOf(now, statSync(marker).mtimeMs) <= ms;
  } catch {
    return false;
  }
}

/**
 * A throwaway shell backgrounds the sentinel and exits, reparenting it so a harness that kills its
 * hook's process tree cannot take it along. argv travels as positional parameters, never shell text;
 * the log arrives open as fd 3 (opened without following a link), so the shell opens no path.
 */
const LAUNCHER = '"$@" </dev/null >&3 2>&1 3>&- & echo $!';

/**
 * JSC's optimizing tiers (DFG, FTL) off for the sentinel only: its I/O-bound passes gain nothing and
 * they cost about 8 MiB RSS at 200 tasks (`bench/sentinel-pass.ts`). The baseline JIT stays: bun:ffi needs it.
 */
export const SENTINEL_RUNTIME_ENV: Readonly<Record<string, string>> = { BUN_JSC_useDFGJIT: "0" };

export function startDetached(argv: string[], logFd: number, cwd: string, env: Deps["env"]): number {
  const res = Bun.spawnSync(["/bin/sh", "-c", LAUNCHER, "vx-launcher", ...argv], {
    cwd,
    env: { ...(env as Record<string, string>), ...SENTINEL_RUNTIME_ENV },
    stdio: ["ignore", "pipe", "pipe", logFd],
    detached: true,
  });
  const pid = Number(res.stdout.toString().trim());
  if (res.exitCode !== 0 || !Number.isSafeInteger(pid) || pid <= 1) {
    throw new Error(res.stderr.toString().trim() || `the launcher shell exited with ${res.exitCode}`);
  }
  return pid;
}

/** Waits briefly for a started sentinel to take the lock; "gone" when it exited first. */
function awaitStart(paths: ReturnType<typeof rootPaths>, pid: number): "running" | "gone" | "starting" {
  // A process guard, not a behaviour timing: real time, whatever clock the caller runs on.
  const deadline = performance.now() + GUARDS.sentinelStart;
  for (;;) {
    if (readSentinelInfo(paths)?.pid === pid) return "running";
    if (!isAlive(pid)) return readSentinelInfo(paths)?.pid === pid ? "running" : "gone";
    if (performance.now() >= deadline) return "starting";
    Bun.sleepSync(20);
  }
}

/**
 * After our sentinel is gone, whether another holds the lock (ours lost the start). Ours can still
 * hold it briefly while its other threads exit, so require a pid not ours, or the start guard passed.
 */
function anotherHolds(paths: ReturnType<typeof rootPaths>, pid: number): boolean {
  const deadline = performance.now() + GUARDS.sentinelStart;
  for (;;) {
    if (!sentinelState(paths).running) return false;
    const holder = readSentinelPid(paths);
    if (holder !== undefined && holder !== pid && isAlive(holder)) return true;
    if (performance.now() >= deadline) return true;
    Bun.sleepSync(20);
  }
}

type EnsureResult = { started?: number; error?: string };

export function ensureSentinel(deps: Deps, root: string, opts: { quiet?: boolean } = {}): EnsureResult {
  const paths = rootPaths(root);
  try {
    const state = sentinelState(paths, deps.env);
    if (state.running && !state.stale) return {};
    // In a sandbox's pid namespace a sentinel dies with the command and its pid means nothing outside.
    const namespace = foreignPidNamespace();
    if (namespace) throw new Error(`not from inside a sandbox (${namespace}), where it would die with this command`);
    // One successor waiting out a stale holder is enough, however many awaits poll meanwhile.
    const marker = successorMarker(root);
    if (state.running && startedWithin(marker, deps.clock.now(), scaled("retireWait", deps.env))) return {};
    ensureRoot(root);
    const logFd = openStateAppend(paths.sentinelLog);
    let pid: number;
    try {
      pid = startDetached([...deps.self, "sentinel"], logFd, root, deps.env);
    } finally {
      closeSync(logFd);
    }
    // The holder reads why it is stale here (its own check sees only a binary change) and retires.
    if (state.running) writeStateFile(root, marker, `${pid}\n${state.stale ?? ""}\n`);
    if (opts.quiet) return { started: pid };
    // Said only when true; one that exited at once lost the start to another or failed.
    const outcome = awaitStart(paths, pid);
    if (outcome === "gone") {
      if (anotherHolds(paths, pid)) return {};
      throw new Error(`it exited at once (see ${paths.sentinelLog})`);
    }
    deps.stderr.write(`vx: auto-started sentinel (pid ${pid}), logging to ${paths.sentinelLog}\n`);
    return { started: pid };
  } catch (err) {
    const error = errorMessage(err);
    if (!opts.quiet) {
      deps.stderr.write(`vx: warning: could not auto-start the sentinel: ${error} - run 'vx sentinel' yourself in the background\n`);
    }
    return { error };
  }
}
