/**
 * Landing a finished mission (CMD-LAND-01..03): its checks in the spec's order, the fast-forward
 * of the base, T12, the strike, and the hint naming missions the landing left diverged.
 * `commands/land.ts` checks the arguments.
 */
import { branchExists, commitsNotIn, currentBranch, isClean, isFastForward, mergeFastForward } from "../camps/git";
import { divergedLine, divergedMissions, missionsInFlight } from "../camps/overlap";
import { leasedTasks } from "../camps/pool";
import type { Deps } from "../deps";
import { EXIT, VxError, errorMessage } from "../errors";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { listTasks, requireTask, sortTasks } from "../state/tasks";
import { afterRemoteLanding, fetchMission, forgetFetched } from "./remote-task";
import { StrikeError, recordDone, strikeTask } from "./strike";

function refused(reason: string): VxError {
  return new VxError(`land refused: ${reason}`);
}

/** CMD-LAND-01's checks, in the spec's order; returns the branch and base to merge. */
async function checkLandable(deps: Deps, project: string, task: Task): Promise<{ branch: string; base: string }> {
  const id = task.id;
  if (task.kind === "scout") {
    throw new VxError(`task ${id} is a scout - scouts report, they do not land; strike it once you have read its report`);
  }
  if (task.status === "shipped") throw new VxError(`task ${id} is shipped - landing a pull request is not supported yet`);
  const branch = task.camp_branch;
  const base = task.camp_base;
  if (!branch || !base) throw refused(`task ${id} has no camp branch and base recorded`);
  if (!(await isClean(project, deps.exec, { ignoreUntracked: true }))) {
    throw new VxError(`project checkout ${project} has uncommitted changes, refusing to land ${branch}`);
  }
  const current = await currentBranch(project, deps.exec);
  if (current !== base) {
    throw new VxError(`project checkout ${project} is on ${current ?? "a detached HEAD"}, not ${base} - check out ${base}, then retry`);
  }
  if (!(await branchExists(project, branch, deps.exec))) throw refused(`branch ${branch} does not exist`);
  // Nothing ahead of base: the soldier has not committed yet (landing would close its pane
  // mid-work), or its work is already in base by other means (then strike is the command).
  if ((await commitsNotIn(project, branch, base, deps.exec)) === 0) {
    throw refused(`nothing to land yet: ${branch} has no commit that ${base} lacks - wait for the soldier's commits, or strike task ${id} if its work is already in ${base}`);
  }
  if (!(await isFastForward(project, branch, base, deps.exec))) {
    throw new VxError(`${branch} is not a fast-forward of ${base} (it has diverged) - have the soldier rebase ${branch} onto ${base}, then retry`);
  }
  return { branch, base };
}

/** Runs under the task's operation lock, so no prompt or strike of it interleaves. */
export async function landTask(deps: Deps, paths: ProjectPaths, id: string): Promise<number> {
  const project = paths.project;
  const task = requireTask(paths, id);
  // A mission on another machine: its branch fetched here first, then landed by the same rules (MCH-10).
  if (task.machine) await fetchMission(deps, paths, task);
  const { branch, base } = await checkLandable(deps, project, task);
  try {
    await mergeFastForward(project, branch, deps.exec);
  } catch (err) {
    throw refused(errorMessage(err));
  }
  deps.stdout.write(`landed: fast-forwarded ${project} to ${branch}\n`);
  await recordDone(deps, paths, id);
  try {
    if (task.machine) await afterRemoteLanding(deps, paths, task, base);
    // A machine's own strike would take its still-running task for an abandoned one (T13): it is told of the landing.
    await strikeTask(deps, paths, id, { landed: true });
    if (task.machine) await forgetFetched(deps, paths, branch);
  } catch (err) {
    const reason = err instanceof StrikeError ? err.reason : errorMessage(err);
    deps.stderr.write(`vx: landed, but automatic strike failed: ${reason} - retry with 'vx strike ${id}'\n`);
    return EXIT.error;
  }
  await hintDiverged(deps, paths, id, base);
  return EXIT.ok;
}

/**
 * CMD-LAND-03: the other missions in flight this landing left behind, named in one line the
 * commander can act on. Only a hint: the landing is done, so a failure to tell is said, not fatal.
 */
async function hintDiverged(deps: Deps, paths: ProjectPaths, id: string, base: string): Promise<void> {
  try {
    const others = sortTasks(listTasks(paths))
      .map((t) => t.value)
      .filter((t) => t.id !== id);
    const missions = missionsInFlight(others, leasedTasks(paths));
    const line = divergedLine(base, await divergedMissions(paths.project, base, missions, deps.exec));
    if (line) deps.stderr.write(`${line}\n`);
  } catch (err) {
    deps.stderr.write(`vx: could not tell which missions this landing diverged: ${errorMessage(err)}\n`);
  }
}
