/**
 * The forum server's life (FOR-05): one per state root under a kernel lock, on 127.0.0.1 only,
 * its facts in `forum/server.json`, messages a kill -9 left half-delivered repaired at start, and
 * an end on a signal, a binary change (as SEN-22) or the idle limit. It holds no state of its own:
 * every page reads the files, so a restarted server serves the same sessions.
 */
import { randomBytes } from "node:crypto";
import { closeSync, writeSync } from "node:fs";
import { selfExecutable } from "../deps";
import type { Deps } from "../deps";
import { EXIT, VxError, errorMessage } from "../errors";
import { foreignPidNamespace } from "../sandbox";
import { buildOf, changeReason } from "../sentinel/build";
import { createLog } from "../sentinel/log";
import { ensureStateDir, openStateAppend, readStateText, removeFile, writeStateFile } from "../state/files";
import { type HeldLock, tryLockExclusive } from "../state/lock";
import { stateRoot } from "../state/paths";
import { loadRecord, renderState } from "../state/record";
import { type ForumServer, ForumServerSchema } from "../state/schemas";
import { COUNTS, GUARDS, isoTime, scaled } from "../time";
import { VERSION } from "../version";
import { realNotifier } from "../wakes/notify";
import { createViews, sweepLinks } from "./codes";
import { createHub, createWatch } from "./events";
import { type ForumPaths, forumPaths } from "./paths";
import { createHandler } from "./routes";
import { allSessions, recoverSession } from "./sessions";

export function readServerInfo(fp: ForumPaths): ForumServer | undefined {
  try {
    return loadRecord(fp.info, ForumServerSchema)?.value;
  } catch {
    return undefined;
  }
}

/** The token kept across restarts (FOR-06), made on first use. */
function tokenOf(fp: ForumPaths): string {
  const have = readStateText(fp.token)?.trim();
  if (have && /^[0-9a-f]{64}$/.test(have)) return have;
  const token = randomBytes(32).toString("hex");
  writeStateFile(fp.root, fp.token, `${token}\n`);
  return token;
}

function lastPort(fp: ForumPaths): number {
  const n = Number(readStateText(fp.lastPort)?.trim());
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : 0;
}

/** Takes the lock, waiting out a holder whose binary changed (it is retiring); else refuses. */
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

function listen(port: number, fetch: (req: Request) => Promise<Response>): Serve {
  const opts = { hostname: "127.0.0.1", idleTimeout: 0, maxRequestBodySize: 1 << 20, fetch };
  try {
    return Bun.serve({ ...opts, port });
  } catch (err) {
    if (port === 0) throw err;
    return Bun.serve({ ...opts, port: 0 });
  }
}

/** `vx forum serve`: runs until stopped, retired or idle; the exit code. */
export async function runServer(deps: Deps): Promise<number> {
  const namespace = foreignPidNamespace();
  if (namespace) throw new VxError(`the forum server cannot run inside a sandbox (${namespace}): it would die with the command that started it - run 'vx forum board' once from a terminal outside the sandbox`);
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
  const token = tokenOf(fp);
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
      now: () => deps.clock.now(),
      touch: () => {
        lastSeen = deps.clock.now();
      },
      rang: (project, wake) => notifier.notify([{ kind: "forum", home: project, project, wake }]),
      log,
    },
    new Map(),
  );
  let server: Serve;
  try {
    server = listen(lastPort(fp), handler);
  } catch (err) {
    lock.release();
    throw new VxError(`the forum server could not listen on 127.0.0.1 (${errorMessage(err)}) - check that the loopback interface is up and this user can open more sockets, then run 'vx forum board' again`);
  }
  gate.port = server.port ?? 0;
  writeStateFile(root, fp.lastPort, `${gate.port}\n`);
  const info: ForumServer = { pid: deps.pid, port: gate.port, token, binary, started_at: isoTime(deps.clock.now()) };
  writeStateFile(root, fp.info, renderState(info));
  log(`forum: server ${deps.pid} listening on http://127.0.0.1:${gate.port}/ (vx ${VERSION})`);
  for (const s of safeSessions(root, log)) {
    try {
      const n = recoverSession(root, s, deps.clock.now());
      if (n > 0) log(`forum: delivered ${n} message(s) of ${s.session} a stopped server had not`);
    } catch (err) {
      log(`forum: could not check ${s.session}: ${errorMessage(err)}`);
    }
  }

  const sweep = () => sweepLinks(fp, deps.clock.now(), scaled("forumLink", deps.env), log);
  sweep();
  const why = await watchUntilDone(root, deps, hub, binary, () => lastSeen, sweep);
  log(`forum: server ${deps.pid} stopping: ${why}`);
  server.stop(true);
  hub.close();
  notifier.close();
  if (readServerInfo(fp)?.pid === deps.pid) removeFile(fp.info);
  lock.release();
  closeSync(logFd);
  return EXIT.ok;
}

function safeSessions(root: string, log: (l: string) => void) {
  try {
    return allSessions(root);
  } catch (err) {
    log(`forum: cannot list sessions: ${errorMessage(err)}`);
    return [];
  }
}

/**
 * FOR-05's idle rule, pure: the reason to exit once no page is open and nothing (a request, a new
 * transcript line) has happened for `idleMs`; undefined while a page is open or within the limit.
 */
export function idleReason(now: number, lastActivity: number, openPages: number, idleMs: number): string | undefined {
  if (openPages > 0 || now - lastActivity < idleMs) return undefined;
  return "idle with no open page";
}

/** Sends events for what changed on disk until a signal, a new binary, or the idle limit. */
async function watchUntilDone(
  root: string,
  deps: Deps,
  hub: ReturnType<typeof createHub>,
  binary: ForumServer["binary"],
  lastSeen: () => number,
  sweep: () => void,
): Promise<string> {
  let stop: string | undefined;
  const handlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((sig) => {
    const h = () => {
      stop = `received ${sig}`;
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  const watch = createWatch(root);
  // Never a busy loop, however small VX_TIME_SCALE is.
  const step = Math.max(50, scaled("forumWatch", deps.env));
  const buildEvery = scaled("sentinelPoll", deps.env);
  let nextBuildCheck = deps.clock.now() + buildEvery;
  let lastChange = deps.clock.now();
  try {
    while (!stop) {
      // With no page open nobody needs the events: look eight times less often (idle CPU).
      await deps.clock.sleep(hub.clients() > 0 ? step : step * 8);
      const now = deps.clock.now();
      try {
        const changed = watch.look();
        if (changed.board) hub.broadcast("board", {});
        for (const s of changed.sessions) hub.broadcast("session", { session: s });
        for (const s of changed.artifacts) hub.broadcast("artifact", { session: s });
        // A message or reply is activity too: a session in use is never left by an idle server.
        if (changed.sessions.length > 0) lastChange = now;
      } catch {
        // a state file mid-change: the next look sees it whole
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
    for (const [sig, h] of handlers) process.off(sig, h);
  }
  return stop ?? "stopped";
}
