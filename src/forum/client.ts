/** The CLI's side of the server (FOR-05): started detached like the sentinel (SEN-23), stopped only after verifying the pid. */
import { closeSync } from "node:fs";
import type { Deps } from "../deps";
import { VxError } from "../errors";
import { inspectProcess, isVxArgv, isVxExecutable, processStateRoot } from "../procs";
import { isAlive } from "../procs";
import { startDetached } from "../sentinel/ensure";
import { changeReason } from "../sentinel/build";
import { ensureStateDir, openStateAppend } from "../state/files";
import { isLockHeld } from "../state/lock";
import { realpathOr } from "../state/paths";
import type { ForumServer } from "../state/schemas";
import { GUARDS, scaled } from "../time";
import { mintLink, writeOpener } from "./codes";
import { forumPaths } from "./paths";
import { readServerInfo } from "./server";

/** Any status is an answer. */
async function answers(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(GUARDS.forumProbe), redirect: "manual" });
    await res.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

export function runningServer(root: string): ForumServer | undefined {
  const fp = forumPaths(root);
  if (!isLockHeld(fp.lock)) return undefined;
  const info = readServerInfo(fp);
  if (!info || !isAlive(info.pid)) return undefined;
  return info;
}

/** FOR-05. */
export async function ensureServer(deps: Deps, root: string): Promise<ForumServer> {
  const fp = forumPaths(root);
  const current = runningServer(root);
  if (current && !changeReason(current.binary) && (await answers(current.port))) return current;
  ensureStateDir(root, fp.dir);
  const logFd = openStateAppend(fp.log);
  let pid: number;
  try {
    pid = startDetached([...deps.self, "forum", "serve"], logFd, root, deps.env);
  } finally {
    closeSync(logFd);
  }
  const deadline = performance.now() + GUARDS.forumStart;
  for (;;) {
    const info = runningServer(root);
    // Ours, or another that won the start: either way one current server answers.
    if (info && !changeReason(info.binary) && (await answers(info.port))) return info;
    if (!isAlive(pid) && !runningServer(root)) {
      throw new VxError(`the forum server exited at once - its reason is at the end of ${fp.log}`);
    }
    if (performance.now() >= deadline) throw new VxError(`the forum server did not answer within ${GUARDS.forumStart / 1000}s - see ${fp.log} for why, then run the command again`);
    await Bun.sleep(50);
  }
}

/** A one-time link the page trades for its key (FOR-06); never the token. */
export function forumUrl(deps: Deps, root: string, info: ForumServer, path = "/"): string {
  return mintLink(forumPaths(root), info.port, path, deps.clock.now(), scaled("forumLink", deps.env));
}

/** Says why not when it cannot. Command lines are world-readable, so they hold only a 0600 redirect file's path (FOR-06). */
export function openBrowser(deps: Deps, root: string, info: ForumServer, page = "/"): string | undefined {
  const darwin = process.platform === "darwin";
  if (!darwin && !deps.env.DISPLAY && !deps.env.WAYLAND_DISPLAY) return "no display to open a browser on (DISPLAY is unset): open the URL yourself";
  const opener = darwin ? "open" : "xdg-open";
  const path = Bun.which(opener, { PATH: deps.env.PATH ?? "" });
  if (!path) return `${opener} is not installed: open the URL yourself`;
  const file = writeOpener(forumPaths(root), info.port, page, deps.clock.now(), scaled("forumOpenLink", deps.env));
  const proc = Bun.spawn([path, file], { stdio: ["ignore", "ignore", "ignore"], env: deps.env as Record<string, string>, detached: true });
  proc.unref();
  return undefined;
}

/** Only then is it signalled. */
async function isOurServer(deps: Deps, pid: number, root: string): Promise<boolean> {
  const info = await inspectProcess(pid, deps.exec);
  if (!info || !isVxArgv(info.argv)) return false;
  const i = info.argv.indexOf("forum");
  if (i < 0 || info.argv[i + 1] !== "serve") return false;
  if (process.platform === "linux" && (info.exe === undefined || !isVxExecutable(info.exe))) {
    // A development run is bun running the entry script.
    if (!info.argv.some((a) => a.endsWith("src/cli.ts"))) return false;
  }
  return (await processStateRoot(pid, deps.exec)) === realpathOr(root);
}

export async function stopServer(deps: Deps, root: string): Promise<string> {
  const fp = forumPaths(root);
  if (!isLockHeld(fp.lock)) return "no forum server is running";
  const info = readServerInfo(fp);
  if (!info)
    throw new VxError(`a forum server holds ${fp.lock} but ${fp.info} names none - end that 'vx forum serve' process yourself ('fuser ${fp.lock}' names its pid), then run 'vx forum stop' again`);
  if (!(await isOurServer(deps, info.pid, root))) {
    throw new VxError(`pid ${info.pid} in ${fp.info} is not this state root's forum server - not signalling it; end the 'vx forum serve' process that holds ${fp.lock} yourself`);
  }
  process.kill(info.pid, "SIGTERM");
  const deadline = performance.now() + GUARDS.forumStart;
  while (isLockHeld(fp.lock) && performance.now() < deadline) await Bun.sleep(50);
  if (isLockHeld(fp.lock)) throw new VxError(`the forum server (pid ${info.pid}) did not stop within ${GUARDS.forumStart / 1000}s - run 'vx forum stop' again, or end pid ${info.pid} yourself`);
  return `stopped the forum server (pid ${info.pid})`;
}
