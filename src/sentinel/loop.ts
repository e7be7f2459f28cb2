/** `vx sentinel`: the polling loop, until a signal (SEN-24) or a binary change (SEN-22) ends it after the current step. */
import type { Deps } from "../deps";
import { selfExecutable } from "../deps";
import { isLiveVx } from "../procs";
import { type ProjectPaths, rootPaths, stateRoot } from "../state/paths";
import { COUNTS, GUARDS, realClock, scaled, seconds } from "../time";
import { normalJit } from "../jit";
import { VERSION } from "../version";
import { reapAwaiters } from "../awaiters/registry";
import { type Waker, createWaker } from "../awaiters/waker";
import { statSync } from "node:fs";
import { ensureStateDir, isDirectory } from "../state/files";
import { hasHooklessCommander } from "../commanders/check";
import { injectWakes } from "../commanders/inject";
import { realNotifier } from "../wakes/notify";
import { recoverDeadClaims } from "../wakes/queue";
import { buildOf, changeReason } from "./build";
import { type Log, createLog, errorText } from "./log";
import type { Build } from "../state/schemas";
import { type PassCtx, type PassResult, newMemory, reportTickError, runPass, stateDirs } from "./pass";
import { acquireSingleton } from "./singleton";
import { successorWaiting } from "./ensure";
import { EXIT } from "../exit-codes";
import { onStopSignals } from "../signals";
import { createExclusive, createRelays } from "../machines/relay";
import { newMirrors } from "../machines/mirror";

function scaledWindows(env: Deps["env"]) {
  return {
    settleGrace: scaled("settleGrace", env),
    notFoundWindow: scaled("notFoundWindow", env),
    unconfirmedWindow: scaled("unconfirmedWindow", env),
    stillRunningLimit: scaled("stillRunningLimit", env),
  };
}

async function recoverClaims(dirs: ProjectPaths[], deps: Deps, ctx: Pick<PassCtx, "memory" | "log">): Promise<void> {
  for (const p of dirs) {
    for (const dir of [p.wakesDir, p.forumWakesDir]) {
      const key = `${p.key} claims ${dir}`;
      try {
        await recoverDeadClaims(dir, { now: deps.clock.now(), isLiveVx: (pid) => isLiveVx(pid, deps.exec), pid: deps.pid });
        reportTickError(ctx, key, undefined);
      } catch (err) {
        reportTickError(ctx, key, err);
      }
    }
  }
}

export async function runSentinel(deps: Deps): Promise<number> {
  const root = stateRoot(deps.env);
  const paths = rootPaths(root);
  const exe = selfExecutable();
  const build = buildOf(exe) ?? { version: VERSION, executable: exe, resolved: exe, size: 0, mod_time_unix_nano: 0 };
  const ac = new AbortController();
  let stoppedBy: string | undefined;
  // Handlers first: a successor waiting out a stale holder must still stop cleanly (SEN-24).
  const removeHandlers = onStopSignals((sig) => {
    stoppedBy ??= sig;
    ac.abort();
  });
  const log = createLog(deps.stdout, deps.clock);
  try {
    const single = await acquireSingleton(paths, deps, build, ac.signal);
    if (single) {
      try {
        await poll(deps, root, build, log, ac.signal);
      } finally {
        if (stoppedBy) log(`sentinel: stopped by ${stoppedBy}`);
        single.release();
      }
    } else {
      log(`sentinel: stopped by ${stoppedBy}`);
    }
  } finally {
    removeHandlers();
  }
  return EXIT.ok;
}

/**
 * Watches what should cut the poll short: hook-less commanders' queues (the sentinel is their await,
 * AWT-04) and every `states/` dir (a soldier's `vx report idle`). Updated after each pass, before
 * delivery, so nothing written from then on slips past it.
 */
export function changeWatch(clock: Deps["clock"], log: Log) {
  let current: { key: string; waker: Waker } | undefined;
  // A missing directory cannot be watched. Made only inside a project's state dir that is still there:
  // a root removed since the pass listed it is never made again (the loop then stops on it).
  const made = (p: ProjectPaths, dir: string) => {
    try {
      if (!isDirectory(p.stateDir)) return false;
      ensureStateDir(p.root, dir);
      return true;
    } catch {
      return false; // unwatchable: the poll is the safety net
    }
  };
  return {
    update(dirs: ProjectPaths[]): void {
      const hookless = dirs.filter(hasHooklessCommander);
      // From the paths alone, so an unchanged set costs no file system work.
      const key = [...hookless.map((p) => `q ${p.stateDir}`), ...dirs.map((p) => `s ${p.stateDir}`)].join("\n");
      if (current?.key === key) return;
      current?.waker.close();
      const queues = hookless.flatMap((p) => (made(p, p.forumWakesDir) ? [p.wakesDir, p.forumWakesDir] : []));
      const states = dirs.filter((p) => made(p, p.statesDir)).map((p) => p.statesDir);
      const watched = [...queues, ...states];
      current = { key, waker: createWaker(watched, clock) };
      log(`sentinel: watching ${queues.length} queue and ${states.length} states dir(s) for changes`);
    },
    wait(ms: number, signal: AbortSignal): Promise<void> {
      return current ? current.waker.wait(ms, signal) : clock.sleep(ms, signal);
    },
    close(): void {
      current?.waker.close();
    },
  };
}

/**
 * When the loop runs a full collection: after a pass that grew the heap by COUNTS.sentinelGcGrowth (thousands of tasks read),
 * else once GUARDS.sentinelGc of real time has passed (a clock seen stepping back collects and counts from there). At the
 * default poll that is every pass, as before; at a test's VX_TIME_SCALE of 0.02, one pass in fifty.
 */
export function gcPacer(start: number, heap: number): { due(now: number, heap: number): boolean; collected(now: number, heap: number): void } {
  let last = start;
  let base = heap;
  return {
    due: (now, heap) => heap - base >= COUNTS.sentinelGcGrowth || now < last || now - last >= GUARDS.sentinelGc,
    collected(now, heap) {
      last = now;
      base = heap;
    },
  };
}

const heapUsed = () => process.memoryUsage().heapUsed;

function dirId(path: string): string | undefined {
  try {
    const st = statSync(path);
    return st.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
  } catch {
    return undefined;
  }
}

function sameDir(path: string, id: string | undefined): boolean {
  return id !== undefined && dirId(path) === id;
}

async function poll(deps: Deps, root: string, build: Build, log: Log, signal: AbortSignal): Promise<void> {
  // A successor marker older than this holds for the holder before it (SEN-23).
  const since = deps.clock.now();
  const reaped = await reapAwaiters(root, deps.exec);
  if (reaped > 0) log(`sentinel: stopped ${reaped} orphaned await process(es)`);
  const interval = scaled("sentinelPoll", deps.env);
  log(`sentinel: polling ${root} every ${seconds(interval)}s as vx ${VERSION} (ctrl-c to stop)`);
  const ctx: PassCtx = {
    root,
    exec: deps.exec,
    clock: deps.clock,
    env: deps.env,
    log,
    windows: scaledWindows(deps.env),
    memory: newMemory(),
    signal,
  };
  const watch = changeWatch(deps.clock, log);
  const notifier = realNotifier(deps.env, log);
  const exclusive = createExclusive();
  const relays = createRelays(deps, root, log, exclusive, (w) => notifier.notify([w]));
  const rootId = dirId(root);
  const gc = gcPacer(realClock.monotonic(), heapUsed());
  // Start-up is done: the passes, run for days, are compiled as usual (src/jit.ts).
  normalJit();
  try {
    while (!signal.aborted) {
      let seen: PassResult = { wakes: 0, dirs: [], written: [], mirrors: newMirrors() };
      try {
        seen = await exclusive(() => runPass(ctx));
      } catch (err) {
        log(`sentinel: tick error: ${errorText(err)}`);
        seen.dirs = stateDirs(root);
      }
      // Never awaited: the general's ping cannot hold up a wake (WAK-14).
      notifier.notify(seen.written);
      if (signal.aborted) break;
      relays.sync(seen.mirrors);
      watch.update(seen.dirs);
      await recoverClaims(seen.dirs, deps, ctx);
      try {
        await injectWakes(ctx, seen.agents, seen.dirs);
      } catch (err) {
        log(`sentinel: tick error: ${errorText(err)}`);
      }
      if (signal.aborted) break;
      const reason = changeReason(build);
      if (reason) {
        log(`sentinel: retiring, ${reason} - the next vx dispatch, prompt or Stop hook await starts a fresh one`);
        break;
      }
      const successor = successorWaiting(root, deps.pid, since);
      if (successor) {
        log(`sentinel: retiring, ${successor} - it takes over`);
        break;
      }
      // State root removed or replaced: stop rather than poll forever.
      if (!sameDir(root, rootId)) {
        log(`sentinel: stopping, ${root} was removed`);
        break;
      }
      // Keeps the heap small and flat for days of polling: a cheap collection every pass (enough for the anonymous memory to
      // stay flat, bench/sentinel-pass.ts), a full one when gcPacer says so, not ten a second at a test's VX_TIME_SCALE.
      if (gc.due(realClock.monotonic(), heapUsed())) {
        Bun.gc(true);
        gc.collected(realClock.monotonic(), heapUsed());
      } else Bun.gc(false);
      await watch.wait(interval, signal);
    }
  } finally {
    relays.close();
    watch.close();
    notifier.close();
  }
}
