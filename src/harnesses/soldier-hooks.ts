/**
 * The state hooks of a tmux soldier (TMX-05): the harness arguments, environment and files that
 * make a soldier's harness run `vx report <state>` as its turns start and end and as it waits for
 * a permission. Every file goes under `hooksDir`, outside the camp, and is named by a harness
 * flag or environment variable, so nothing is written into the camp. The soldier's identity is
 * in the environment (`VX_TASK_ID`), so the hooks work from any directory the model moves to.
 */
import { VxError } from "../errors";
import { harnessOf } from "./index";
import type { HarnessName } from "./names";
import type { HookedLaunch } from "./types";
import { isTaskId } from "../state/ids";

/**
 * The extra harness args, env and files (all files outside the camp, under `hooksDir`) that make
 * the harness call `vx report <state>`. The caller writes the files before starting the harness.
 */
export function stateHooks(harness: HarnessName, opts: { vx: string; taskId: string; hooksDir: string }): HookedLaunch {
  if (!isTaskId(opts.taskId)) throw new VxError(`state hooks: "${opts.taskId}" is not a task id`);
  if (!opts.vx.startsWith("/") || !opts.hooksDir.startsWith("/")) {
    throw new VxError(`state hooks: the vx path and the hooks directory must be absolute (got ${opts.vx} and ${opts.hooksDir})`);
  }
  const launch = harnessOf(harness).stateHooks({ vx: opts.vx, hooksDir: opts.hooksDir });
  return { ...launch, env: { ...launch.env, VX_TASK_ID: opts.taskId, VX_HARNESS: harness } };
}
