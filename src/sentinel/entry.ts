/**
 * `vx sentinel` with no subcommand, as `ensureSentinel` starts it: the loop without the command
 * table. It polls for days, so it loads what a pass uses and nothing else (no citty, no other
 * command, no forum or demo); `test/unit/sentinel-closure.test.ts` holds its import closure to that.
 */
import { type Deps, realDeps } from "../deps";
import { VxError } from "../errors";
import { reportError } from "../report-error";
import { NO_HOME } from "../state/paths";
import { runSentinel } from "./loop";

export async function sentinelEntry(deps: Deps = realDeps()): Promise<number> {
  try {
    if (!deps.env.HOME) throw new VxError(NO_HOME);
    return await runSentinel(deps);
  } catch (err) {
    return reportError(err, deps, () => "");
  }
}
