/** Doctor's sentinel check (DOC-11) and pending-wakes check (DOC-13). Never stops a process. */
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { liveAwaiters } from "../awaiters/registry";
import { psEnv } from "../procs";
import { listWakeNames } from "../wakes/queue";
import type { Deps } from "../deps";
import { changeReason } from "../sentinel/build";
import { pathReason, sentinelState } from "../sentinel/singleton";
import type { ProjectPaths } from "../state/paths";
import { rootPaths } from "../state/paths";
import { VERSION } from "../version";
import type { Check } from "../check";

/** Pids of `vx sentinel` loops of this user and, where the kernel tells, this HOME. */
async function sentinelPids(deps: Deps): Promise<number[]> {
  // Full width whatever the caller's terminal: a cut line would hide a sentinel with a long path.
  const res = await deps.exec.run(["ps", "-x", "-ww", "-o", "pid=,command="], { env: psEnv(deps.env) });
  if (res.code !== 0) return [];
  const pids: number[] = [];
  for (const line of res.stdout.split("\n")) {
    const m = /^\s*(\d+)\s+(\S+)\s+sentinel\s*$/.exec(line);
    if (!m || basename(m[2]) !== "vx") continue;
    const pid = Number(m[1]);
    if (sameHome(pid, deps.env.HOME)) pids.push(pid);
  }
  return pids;
}

function sameHome(pid: number, home: string | undefined): boolean {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    return env.includes(`HOME=${home}`);
  } catch (err) {
    // Ended since ps listed it (another HOME's sentinel stopping, say): no longer alive, so not counted.
    if ((err as NodeJS.ErrnoException).code === "ENOENT" && existsSync("/proc/self")) return false;
    return true; // No /proc (macOS) or not ours to read: count it, as ps did.
  }
}

export async function sentinelCheck(deps: Deps, root: string): Promise<Check> {
  const name = "sentinel";
  const paths = rootPaths(root);
  const state = sentinelState(paths);
  const awaiting = (await liveAwaiters(paths.awaitersDir, deps.exec, undefined, true)).length;
  const warnings: string[] = [];
  const pids = await sentinelPids(deps);
  if (pids.length > 1) {
    warnings.push(`${pids.length} sentinel processes are alive (pids ${pids.join(", ")}) and compete for the same tasks - stop them with 'kill <pid>' and let a single fresh one start`);
  }
  const info = state.info;
  if (state.running && info) {
    if (info.build.version !== VERSION) {
      warnings.push(`the running sentinel (pid ${info.pid}) is version ${info.build.version} but this binary is ${VERSION} - stop it with 'kill ${info.pid}'`);
    }
    // Started from a shell whose PATH lacked a backend this one has (SEN-23's successor rule).
    const path = pathReason(info.path, deps.env.PATH);
    if (path) warnings.push(`the running sentinel (pid ${info.pid}) started with a PATH that cannot serve this shell: ${path} - a vx dispatch from here starts a successor it gives way to`);
    const why = changeReason(info.build);
    if (why) {
      warnings.push(`the running sentinel (pid ${info.pid}) started from a binary that has since changed (${why}) - it retires on its own within seconds, or stop it with 'kill ${info.pid}'`);
    }
  }
  if (warnings.length) return { status: "warn", name, detail: `${warnings.join("; ")} (the next 'vx dispatch' starts a current one)` };
  const what = state.running ? "running" : "not running (the next 'vx dispatch' starts it)";
  return { status: "ok", name, detail: `${what}, ${awaiting} sentinel await(s) waiting` };
}

/** The wakes a deliverer would claim (the queue's own listing: a directory is no wake). */
function countWakes(dir: string): number {
  try {
    return listWakeNames(dir).length;
  } catch {
    return 0;
  }
}

/** DOC-13; `commanderLive` says whether a registered commander of this project is live. */
export async function pendingWakesCheck(deps: Deps, root: string, paths: ProjectPaths, commanderLive: () => Promise<boolean>): Promise<Check> {
  const name = "pending wakes";
  const n = countWakes(paths.wakesDir) + countWakes(paths.forumWakesDir);
  if (n > 0) {
    const awaiters = await liveAwaiters(rootPaths(root).awaitersDir, deps.exec, undefined, true);
    if (!awaiters.some((a) => a.rec.project_path === paths.project) && !(await commanderLive())) {
      return {
        status: "warn",
        name,
        detail: `${n} wake(s) waiting with no live sentinel await and no live registered commander, so nobody hears them until the commander's next turn; vx status shows what happened`,
      };
    }
  }
  return { status: "ok", name, detail: `${n} waiting` };
}
