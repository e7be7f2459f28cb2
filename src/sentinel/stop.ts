/** Stopping a sentinel: only a `vx sentinel` verified by pid file, command line and state root is signalled. */
import { realpathSync } from "node:fs";
import type { Deps } from "../deps";
import { inspectProcess, isVxArgv, processStateRoot } from "../procs";
import { rootPaths } from "../state/paths";
import { GUARDS, deadlineIn } from "../time";
import { readSentinelPid, sentinelState } from "./singleton";

type StopOutcome = { stopped?: number; left?: string };

/** Stops the sentinel of the state root `root`: SIGTERM, then SIGKILL for one still verified 5 s later. */
export async function stopSentinel(deps: Pick<Deps, "exec" | "clock" | "self">, root: string): Promise<StopOutcome> {
  const paths = rootPaths(root);
  const pid = readSentinelPid(paths);
  if (pid === undefined) return sentinelState(paths).running ? { left: "a sentinel holds the lock but wrote no pid file" } : {};
  const ours = async () => {
    const info = await inspectProcess(pid, deps.exec);
    // `vx sentinel` as vx names itself, or exactly as this vx starts it (bun under another name).
    const sentinel = [...deps.self, "sentinel"];
    const same = info?.argv.length === sentinel.length && info.argv.every((a, i) => a === sentinel[i]);
    if (!info || !(same || (isVxArgv(info.argv) && info.argv.slice(-1)[0] === "sentinel"))) return false;
    return (await processStateRoot(pid, deps.exec)) === realpathSync(paths.root);
  };
  if (!(await ours())) return sentinelState(paths).running ? { left: `the sentinel lock is held, but pid ${pid} is not a sentinel of ${root}` } : {};
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    if (!(await ours())) break;
    try {
      process.kill(pid, signal);
    } catch {
      break;
    }
    const deadline = deadlineIn(deps.clock, GUARDS.demoSentinelStop);
    while (!deadline.passed() && ((await ours()) || sentinelState(paths).running)) await deps.clock.sleep(50);
  }
  return (await ours()) || sentinelState(paths).running ? { left: `the sentinel (pid ${pid}) did not stop` } : { stopped: pid };
}
