/** `vx sentinel` as `ensureSentinel` starts it: it polls for days, so it loads only what a pass uses (`test/unit/sentinel-closure.test.ts`). */
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
