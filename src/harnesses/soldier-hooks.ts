/** TMX-05: a soldier's state hooks, every file outside the camp; its identity is in the env, so they work from any directory. */
import { VxError } from "../errors";
import { harnessOf } from "./index";
import type { HarnessName } from "./names";
import type { HookedLaunch } from "./types";
import { isTaskId } from "../state/ids";

export function stateHooks(harness: HarnessName, opts: { vx: string; taskId: string; hooksDir: string }): HookedLaunch {
  if (!isTaskId(opts.taskId)) throw new VxError(`state hooks: "${opts.taskId}" is not a task id`);
  if (!opts.vx.startsWith("/") || !opts.hooksDir.startsWith("/")) {
    throw new VxError(`state hooks: the vx path and the hooks directory must be absolute (got ${opts.vx} and ${opts.hooksDir})`);
  }
  const launch = harnessOf(harness).stateHooks({ vx: opts.vx, hooksDir: opts.hooksDir });
  return { ...launch, env: { ...launch.env, VX_TASK_ID: opts.taskId, VX_HARNESS: harness } };
}
