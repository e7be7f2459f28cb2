/**
 * The forum server's life (FOR-05): one per state root, 127.0.0.1 only, ending on a signal, a binary change
 * (as SEN-22) or idleness. It holds no state: pages read the files, so a restart serves the same sessions.
 */
import { randomHex } from "../random";
import { closeSync, writeSync } from "node:fs";
import { selfExecutable } from "../deps";
import type { Deps } from "../deps";
import { EXIT, VxError, errorMessage } from "../errors";
import { normalJit } from "../jit";
import { foreignPidNamespace } from "../sandbox";
import { buildOf, changeReason } from "../sentinel/build";
import { createLog } from "../sentinel/log";
import { ensureStateDir, openStateAppend, readStateText, removeFile, writeStateFile } from "../state/files";
import { type HeldLock, tryLockExclusive } from "../state/lock";
import { stateRoot } from "../state/paths";
import { loadRecord, renderState } from "../state/record";
import { type ForumServer, ForumServerSchema } from "../state/schemas";
import { COUNTS, GUARDS, isoTime, scaled } from "../time";
import { onStopSignals } from "../signals";
import { VERSION } from "../version";
import { realNotifier } from "../wakes/notify";
import { createViews, sweepLinks } from "./codes";
import { type Hub, createHub, createWatch } from "./events";
import { type ForumPaths, forumPaths } from "./paths";
import { type ServerControl, createHandler } from "./routes";
import { recoverForum, sweepForum } from "./upkeep";
import { createDirWatch, wantedDirs } from "./watch";

export function readServerInfo(fp: ForumPaths): ForumServer | undefined {
  try {
    return loadRecord(fp.info, ForumServerSchema)?.value;
  } catch {
    return undefined;
  }
}

/** FOR-06: kept across restarts. An unusable token file is reported, never replaced: this run uses its own. */
function tokenOf(fp: ForumPaths, log: (line: string) => void): string {
  const token = randomHex(32);
  let have: string | undefined;
  try {
    have = readStateText(fp.token)?.trim();
  } catch (err) {
    log(`forum: refusing ${errorMessage(err)} - this run uses a token of its own (a page opened before needs the new link)`);
    return token;
  }
  if (have === undefined) {
    try {
      writeStateFile(fp.root, fp.token, `${token}\n`);
    } catch (err) {
      log(`forum: could not keep the token in ${fp.token} (${errorMessage(err)}) - this run's token ends with it`);
    }
    return token;
  }
  if (/^[0-9a-f]{64}$/.test(have)) return have;
  log(`forum: refusing ${fp.token}: it does not hold a token (64 hex) - vx leaves it as it is; remove it or move it aside. This run uses a token of its own`);
  return token;
}

const ANY_PORT = 0;

/** FOR-05; undefined when `last-port` is refused (never rewritten). */
function lastPort(fp: ForumPaths, log: (line: string) => void): number | undefined {
  let text: string | undefined;
  try {
    text = readStateText(fp.lastPort);
  } catch (err) {
    log(`forum: refusing ${errorMessage(err)} - listening on a free port`);
    return undefined;
  }
  if (text === undefined) return ANY_PORT;
  const n = Number(text.trim());
  if (Number.isInteger(n) && n > 0 && n < 65536) return n;
  log(`forum: refusing ${fp.lastPort}: it does not hold a port number - vx leaves it as it is; listening on a free port`);
  return undefined;
}

/** At most 100 kinds are remembered (then all are quiet). */
function onceLog(log: (line: string) => void): (kind: string, line: string) => void {
  const seen = new Set<string>();
  return (kind, line) => {
    if (seen.has(kind) || seen.size >= 100) return;
    seen.add(kind);
    log(line);
  };
}

/** Waits out a retiring holder (binary changed); else refuses. */
async function takeLock(fp: ForumPaths, deps: Deps): Promise<HeldLock> {
  const deadline = deps.clock.now() + scaled("retireWait", deps.env);
  for (;;) {
    const lock = tryLockExclusive(fp.lock);
    if (lock) return lock;
    const info = readServerInfo(fp);
    const retiring = info ? changeReason(info.binary) !== undefined : true;
    if (!retiring || deps.clock.now() >= deadline) {
      throw new VxError(`a forum server is already running (pid ${info?.pid ?? "unknown"}) for ${fp.root} - not starting a second one; 'vx forum board' prints its URL, 'vx forum stop' stops it`);
    }
    await deps.clock.sleep(scaled("retireStep", deps.env));
  }
}

type Serve = ReturnType<typeof Bun.serve>;

/**
 * Production mode: an uncaught error is a short 500, never Bun's page with source and paths. Refused or
 * failed requests' connections close with the answer: an outsider holds a descriptor only while sending.
 */
function listen(port: number, idleSeconds: number, handler: (req: Request, server: ServerControl) => Promise<Response>, logOnce: (kind: string, line: string) => void): Serve {
  const fetch = async (req: Request, server: ServerControl) => {
    const res = await handler(req, server);
    if (res.status >= 400) res.headers.set("Connection", "close");
    return res;
  };
  const error = (err: Error) => {
    logOnce(`error ${err.name}: ${err.message}`, `forum: a request failed: ${err.name}: ${err.message.split("\n")[0]} - answered 500; further ones are not logged`);
    return new Response("internal error\n", { status: 500, headers: { "Content-Type": "text/plain; charset=utf-8", Connection: "close" } });
  };
  const opts = { hostname: "127.0.0.1", development: false, idleTimeout: idleSeconds, maxRequestBodySize: 1 << 20, fetch, error };
  try {
    return Bun.serve({ ...opts, port });
  } catch (err) {
    if (port === 0) throw err;
    return Bun.serve({ ...opts, port: 0 });
  }
}

export async function runServer(deps: Deps): Promise<number> {
  const namespace = foreignPidNamespace();
  if (namespace)
    throw new VxError(`the forum server cannot run inside a sandbox (${namespace}): it would die with the command that started it - run 'vx forum board' once from a terminal outside the sandbox`);
  const root = stateRoot(deps.env);
  const fp = forumPaths(root);
  ensureStateDir(root, fp.dir);
  const lock = await takeLock(fp, deps);
  const logFd = openStateAppend(fp.log);
  const log = createLog({ write: (t) => (writeSync(logFd, t), true) }, deps.clock);
  const exe = selfExecutable();
  const binary = buildOf(exe) ?? { version: VERSION, executable: exe, resolved: exe, size: 0, mod_time_unix_nano: 0 };
  try {
    removeFile(fp.cookieToken);
  } catch (err) {
    log(`forum: cannot remove ${fp.cookieToken} (an older vx's token, never used again): ${errorMessage(err)}`);
  }
  const token = tokenOf(fp, log);
  const logOnce = onceLog(log);
  let lastSeen = deps.clock.now();
  const hub = createHub(GUARDS.forumHeartbeat);
  const notifier = realNotifier(deps.env, log);
  const gate = { port: 0, token };
  const handler = createHandler(
    {
      root,
      gate,
      hub,
      views: createViews(GUARDS.forumView, COUNTS.forumViews),
      linkLife: scaled("forumLink", deps.env),
      exec: deps.exec,
      listen: { deps: { exec: deps.exec, clock: deps.clock, env: deps.env }, agents: { at: 0 } },
      // FOR-14: the board's actions run this vx, with the environment the server was started with.
      self: deps.self,
      env: deps.env,
      now: () => deps.clock.now(),
      touch: () => {
        lastSeen = deps.clock.now();
      },
      rang: (project, wake) => notifier.notify([{ kind: "forum", home: project, project, wake }]),
      log,
      logOnce,
    },
    new Map(),
  );
  // Before listening, so no delivery is in flight.
  upkeep(log, "settle half-done deliveries", () => recoverForum(root, deps.clock.now(), log, logOnce));
  upkeep(log, "sweep temporary files", () => sweepForum(root, deps.clock.now(), scaled("tempAbandoned", deps.env), log));
  const port = lastPort(fp, log);
  let server: Serve;
  try {
    server = listen(port ?? 0, Math.max(1, Math.round(scaled("forumConnectionIdle", deps.env) / 1000)), handler, logOnce);
  } catch (err) {
    lock.release();
    throw new VxError(
      `the forum server could not listen on 127.0.0.1 (${errorMessage(err)}) - check that the loopback interface is up and this user can open more sockets, then run 'vx forum board' again`,
    );
  }
  gate.port = server.port ?? 0;
  normalJit();
  if (port !== undefined) upkeep(log, `keep the port in ${fp.lastPort}`, () => writeStateFile(root, fp.lastPort, `${gate.port}\n`));
  try {
    const info: ForumServer = { pid: deps.pid, port: gate.port, token, binary, started_at: isoTime(deps.clock.now()) };
    writeStateFile(root, fp.info, renderState(info));
  } catch (err) {
    // Unfindable without its record: stop rather than listen unseen.
    server.stop(true);
    hub.close();
    notifier.close();
    lock.release();
    throw new VxError(`the forum server could not write ${fp.info} (${errorMessage(err)}) - move aside what is there or free space, then run 'vx forum board' again`);
  }
  log(`forum: server ${deps.pid} listening on http://127.0.0.1:${gate.port}/ (vx ${VERSION})`);

  const sweep = () => sweepLinks(fp, deps.clock.now(), scaled("forumLink", deps.env), log);
  sweep();
  const why = await watchUntilDone(root, deps, hub, binary, () => lastSeen, log, logOnce, sweep);
  log(`forum: server ${deps.pid} stopping: ${why}`);
  server.stop(true);
  hub.close();
  notifier.close();
  if (readServerInfo(fp)?.pid === deps.pid) removeFile(fp.info);
  lock.release();
  closeSync(logFd);
  return EXIT.ok;
}

/** FOR-05's idle rule. */
export function idleReason(now: number, lastActivity: number, openPages: number, idleMs: number): string | undefined {
  if (openPages > 0 || now - lastActivity < idleMs) return undefined;
  return "idle with no open page";
}

/** Upkeep never stops the server (FOR-05). */
function upkeep(log: (line: string) => void, what: string, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    log(`forum: could not ${what}: ${errorMessage(err)}`);
  }
}

async function watchUntilDone(
  root: string,
  deps: Deps,
  hub: Hub,
  binary: ForumServer["binary"],
  lastSeen: () => number,
  log: (line: string) => void,
  logOnce: (kind: string, line: string) => void,
  sweep: () => void,
): Promise<string> {
  let stop: string | undefined;
  // Cuts the loop's sleep short: a stop, a page opened or gone, a directory that could not be watched.
  let nudge = new AbortController();
  const rouse = () => nudge.abort();
  const removeHandlers = onStopSignals((sig) => {
    stop = `received ${sig}`;
    rouse();
  });
  const watch = createWatch(root);
  let lastChange = deps.clock.now();
  let lastLook = deps.clock.now();
  // FOR-12: a look says what changed since the last one; `arm` first, so nothing between the two is missed.
  const refresh = (arm: boolean) => {
    if (arm) dirs.arm(wantedDirs(root, watch.artifacts()));
    const files = watch.artifacts().join("\n");
    lastLook = deps.clock.now();
    try {
      const changed = watch.look();
      if (changed.board) hub.broadcast("board", {});
      for (const s of changed.sessions) hub.broadcast("session", { session: s });
      for (const s of changed.artifacts) hub.broadcast("artifact", { session: s });
      // A session in use is never left by an idle server.
      if (changed.sessions.length > 0) lastChange = deps.clock.now();
    } catch {
      // mid-change: the next look sees it whole
    }
    if (arm && dirs.armed() && watch.artifacts().join("\n") !== files) dirs.arm(wantedDirs(root, watch.artifacts()));
  };
  const dirs = createDirWatch(
    scaled("forumSettle", deps.env),
    () => refresh(true),
    (line) => {
      logOnce("watch failed", line);
      rouse();
    },
  );
  // Watched only while a page is open: with none, the slow look below keeps the idle rule's transcript lines.
  const pages = (open: number) => {
    if (open > 0 && !dirs.armed()) refresh(true);
    else if (open === 0) dirs.close();
    rouse();
  };
  hub.onClients(pages);
  pages(hub.clients());
  // Never a busy loop, however small VX_TIME_SCALE is.
  const step = Math.max(50, scaled("forumWatch", deps.env));
  const recheck = Math.max(step, scaled("forumRecheck", deps.env));
  const buildEvery = scaled("sentinelPoll", deps.env);
  let nextBuildCheck = deps.clock.now() + buildEvery;
  const sweepEvery = scaled("forumSweep", deps.env);
  let nextSweep = deps.clock.now() + sweepEvery;
  try {
    while (!stop) {
      // A page open and a directory unwatched: look on the old timer; else only now and then, for a missed event.
      const every = hub.clients() > 0 && !dirs.healthy() ? step : recheck;
      nudge = new AbortController();
      await deps.clock.sleep(Math.max(50, Math.min(lastLook + every, nextBuildCheck) - deps.clock.now()), nudge.signal);
      if (stop) break;
      const now = deps.clock.now();
      if (now >= lastLook + every) refresh(dirs.armed());
      if (now >= nextSweep) {
        nextSweep = now + sweepEvery;
        upkeep(log, "sweep temporary files", () => sweepForum(root, now, scaled("tempAbandoned", deps.env), log));
      }
      if (now >= nextBuildCheck) {
        nextBuildCheck = now + buildEvery;
        sweep();
        const reason = changeReason(binary);
        if (reason) stop = `its binary changed (${reason})`;
      }
      stop ??= idleReason(now, Math.max(lastSeen(), lastChange), hub.clients(), scaled("forumIdle", deps.env));
    }
  } finally {
    removeHandlers();
    dirs.close();
  }
  return stop ?? "stopped";
}
