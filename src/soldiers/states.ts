/**
 * Which task a `vx report` is for (CMD-REPORT-01): found from the state root and the camp alone,
 * no git and no project. The state files themselves are `state/soldier-state.ts`'s.
 */
import { join, sep } from "node:path";
import { VxError } from "../errors";
import { isTaskId } from "../state/ids";
import { type ProjectPaths, projectStateDirs, realpathOr, stateDirPaths } from "../state/paths";
import { readStateText } from "../state/files";
import { readPool } from "../camps/pool";
import { loadTask, taskPath } from "../state/tasks";

// vx report, strike and the tests read the state files through this re-export.

/** The state dir whose camps dir holds `dir`, and the slot it is in. */
function campOf(root: string, dir: string): { paths: ProjectPaths; slot: number } | undefined {
  const prefix = `${realpathOr(join(root, "projects"))}${sep}`;
  const real = realpathOr(dir);
  if (!real.startsWith(prefix)) return undefined;
  const [key, camps, slot] = real.slice(prefix.length).split(sep);
  if (!key || camps !== "camps" || !slot || !/^[1-9][0-9]*$/.test(slot)) return undefined;
  return { paths: stateDirPaths(join(root, "projects", key)), slot: Number(slot) };
}

/** Whether task `id`'s own file records the camp that holds `dir` (the lease's stand-in while pool.json cannot be read). */
function taskCampIs(paths: ProjectPaths, id: string, dir: string): boolean {
  let campPath: string | undefined;
  try {
    campPath = loadTask(paths, id)?.value.camp_path;
  } catch {
    return false;
  }
  if (!campPath) return false;
  const camp = realpathOr(campPath);
  const real = realpathOr(dir);
  return real === camp || real.startsWith(`${camp}${sep}`);
}

/**
 * CMD-REPORT-01: `VX_TASK_ID` (found in whichever project holds its task file, the camp's own
 * first), else the task leasing the camp that contains `cwd`. Inside a camp, `VX_TASK_ID` must be
 * that camp's lease: a hook run in one soldier's camp with another's id (an inherited or copied
 * environment) would otherwise rewrite the other soldier's state mid-turn.
 */
export function reportingTask(root: string, cwd: string, envTaskId: string | undefined): { paths: ProjectPaths; taskId: string } {
  const camp = campOf(root, cwd);
  let leased: string | undefined;
  let poolError: unknown;
  try {
    leased = camp ? readPool(camp.paths).slots.find((s) => s.number === camp.slot)?.leased_by : undefined;
  } catch (err) {
    poolError = err; // a corrupt pool.json (doctor names it) must not silence every soldier's hooks
  }
  if (envTaskId) {
    if (!isTaskId(envTaskId)) throw new VxError(`report: VX_TASK_ID "${envTaskId}" is not a task id (16 lowercase hex characters)`);
    if (camp && poolError !== undefined && taskCampIs(camp.paths, envTaskId, cwd)) return { paths: camp.paths, taskId: envTaskId };
    if (camp && envTaskId !== leased) {
      if (poolError !== undefined) throw poolError;
      const whose = leased ? `the camp of task ${leased}` : "a camp no task leases";
      throw new VxError(`report: VX_TASK_ID is ${envTaskId} but ${cwd} is in ${whose} - a soldier reports only from its own camp`);
    }
    const candidates = [...(camp ? [camp.paths] : []), ...projectStateDirs(root).map((d) => stateDirPaths(d))];
    const found = candidates.find((p) => readStateText(taskPath(p, envTaskId)) !== undefined);
    if (found) return { paths: found, taskId: envTaskId };
    throw new VxError(`report: no task ${envTaskId} under ${root}`);
  }
  if (poolError !== undefined) throw poolError;
  if (camp && leased) return { paths: camp.paths, taskId: leased };
  throw new VxError(`report: not inside a vx camp (no VX_TASK_ID, and ${cwd} is not a leased camp)`);
}
