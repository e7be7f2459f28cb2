// CMD-DEMO-02: the next demo cleans what a killed `vx demo` left once its owner pid no longer runs `vx demo`, each process
// stopped only as verified (socket, record or pid file, command line, state root), never by a name.
import { lstatSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { liveAwaiters, reapAwaiters } from "../awaiters/registry";
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import { inspectProcess, vxCommandOf } from "../procs";
import { realpathOr, rootPaths } from "../state/paths";
import { GUARDS } from "../time";
import { DEMO_DIR_PREFIX, OWNER_FILE, type World, removeDir, runSteps, stopSentinel, stopTmux, worldAt } from "./world";

const DIR_RE = new RegExp(`^${DEMO_DIR_PREFIX}[A-Za-z0-9]{6}$`);

/** One line for each earlier demo's dir: cleaned up, or what of it could not be. */
export async function reapEarlierDemos(deps: Deps): Promise<string[]> {
  const base = realpathOr(tmpdir());
  let names: string[];
  try {
    names = readdirSync(base).filter((n) => DIR_RE.test(n));
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const dir = join(base, name);
    if (await leftBehind(deps, dir)) out.push(await reap(deps, worldAt(deps, dir)));
  }
  return out;
}

/** A dir of ours whose owner file names a pid no longer running `vx demo`. */
async function leftBehind(deps: Deps, dir: string): Promise<boolean> {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory() || st.uid !== process.getuid?.()) return false;
  const file = join(dir, OWNER_FILE);
  // No owner file: a kept dir (--keep), or not a demo's at all; either way never touched.
  if (!lstatSync(file, { throwIfNoEntry: false })?.isFile()) return false;
  const m = /^(\d+)\n?$/.exec(readFileSync(file, "utf8"));
  if (!m) return false;
  const owner = await inspectProcess(Number(m[1]), deps.exec);
  return !owner || vxCommandOf(owner.argv) !== "demo";
}

/** Soldiers (with their server), the await, the sentinel, then the dir: what could restart the next goes first. */
async function reap(deps: Deps, w: World): Promise<string> {
  const root = join(w.home, ".vexillum");
  const left = await runSteps([
    ["server", () => stopTmux(deps, w)],
    ["await", () => stopAwaits(deps, root)],
    ["sentinel", () => stopSentinel(deps, w)],
  ]);
  if (left.length > 0) return `an earlier vx demo left ${w.dir}, which could not be cleaned up: ${left.join("; ")}`;
  try {
    removeDir(w);
  } catch (err) {
    return `an earlier vx demo left ${w.dir}, which could not be removed: ${errorMessage(err)}`;
  }
  return `an earlier vx demo was stopped before its teardown: its tmux server, sentinel and temp dir ${w.dir} are cleaned up now`;
}

/** SIGTERM to the demo's awaits (orphans since their demo died, AWT-08), then waits for them to go. */
async function stopAwaits(deps: Deps, root: string): Promise<string | undefined> {
  await reapAwaiters(root, deps.exec);
  const dir = rootPaths(root).awaitersDir;
  const until = deps.clock.now() + GUARDS.demoSentinelStop;
  for (;;) {
    const live = await liveAwaiters(dir, deps.exec, undefined, true);
    if (live.length === 0) return undefined;
    if (deps.clock.now() >= until) return `its await (pid ${live.map((a) => a.rec.pid).join(", ")}) did not stop`;
    await deps.clock.sleep(50);
  }
}
