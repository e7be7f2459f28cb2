/**
 * What a child vx starts (a camp_setup command, a notifier) leaves behind goes with it (issue 25):
 * a process group is not enough, since a grandchild that calls setsid leaves it, and one that
 * closed its output is never noticed by a reader. So each child gets a mark, a random value in an
 * environment variable that everything it starts inherits, and `sweep` kills every live process
 * carrying it. A process is signalled only when its own environment, read just before, holds the
 * mark: a recycled pid is another program, which cannot carry a random value vx made. Only a
 * descendant that clears its environment escapes (`env -i`); none of the usual ways to daemonize do.
 */
import { randomBytes } from "node:crypto";
import { type Exec, realExec } from "./exec";
import { processesWithEnv, stillHasEnv } from "./procs";
import { GUARDS } from "./time";

/** The variable that carries a child's mark (spec STA-10, WAK-14). */
const CHILD_MARK = "VX_CHILD_MARK";

/** Rounds of finding and killing: a process forked between a look and the kills is found by the next look. */
const SWEEP_ROUNDS = 6;

type ChildMark = {
  /** The variables to add to the child's environment. */
  env: Record<string, string>;
  /** Kills every live process carrying the mark; resolves to how many were signalled. Never throws. */
  sweep(): Promise<number>;
};

export function childMark(exec: Exec = realExec): ChildMark {
  const value = randomBytes(16).toString("hex");
  return {
    env: { [CHILD_MARK]: value },
    async sweep() {
      let killed = 0;
      try {
        // Done after two looks in a row find nothing, GUARDS.childSweepGap apart.
        let quiet = false;
        for (let round = 0; round < SWEEP_ROUNDS; round++) {
          const pids = await processesWithEnv(CHILD_MARK, value, exec);
          if (pids.length === 0) {
            if (quiet) break;
            quiet = true;
            await Bun.sleep(GUARDS.childSweepGap);
            continue;
          }
          quiet = false;
          for (const pid of pids) {
            if (!stillHasEnv(pid, CHILD_MARK, value, exec)) continue;
            try {
              process.kill(pid, "SIGKILL");
              killed++;
            } catch {
              // Gone meanwhile.
            }
          }
        }
      } catch {
        // Nothing could be listed: what is left stays, as it did before marks existed.
      }
      return killed;
    },
  };
}
