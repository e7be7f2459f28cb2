// What a child vx starts leaves behind dies with it: a process group is not enough (setsid leaves it), so `sweep` kills every
// process whose environment, read just before the signal, holds the child's random mark (a recycled pid cannot). Only `env -i` escapes.
import { randomHex } from "./random";
import { type Exec, realExec } from "./exec";
import { processesWithEnv, stillHasEnv } from "./procs";
import { GUARDS } from "./time";

/** The variable that carries a child's mark (spec STA-10, WAK-14). */
const CHILD_MARK = "VX_CHILD_MARK";

/** Rounds of finding and killing: a process forked between a look and the kills is found by the next look. */
const SWEEP_ROUNDS = 6;

type ChildMark = {
  env: Record<string, string>;
  /** Kills every live process carrying the mark; resolves to how many were signalled. Never throws. */
  sweep(): Promise<number>;
};

export function childMark(exec: Exec = realExec): ChildMark {
  const value = randomHex(16);
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
        // Nothing could be listed: what is left stays.
      }
      return killed;
    },
  };
}
