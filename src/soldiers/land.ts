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
import { listTasks, requireTask, sortTasks, updateTask } from "../state/tasks";
import { commitOf } from "../camps/rebase";
import { isoTime } from "../time";
import { divergedRefusal, recoverSelfRebase, selfRebase } from "./land-rebase";
import { afterRemoteLanding, fetchMission, forgetFetched } from "./remote-task";
import { StrikeError, recordDone, strikeTask } from "./strike";

function refused(reason: string): VxError {
  return new VxError(`land refused: ${reason}`);
}

/** CMD-LAND-01's checks, in the spec's order; returns the branch and base to merge, and whether it fast-forwards already. */
async function checkLandable(deps: Deps, project: string, task: Task): Promise<{ branch: string; base: string; fastForward: boolean }> {
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
  return { branch, base, fastForward: await isFastForward(project, branch, base, deps.exec) };
}

/** A diverged branch: land rebases it itself when it can (CMD-LAND-04), else the soldier must. */
async function rebaseToLand(deps: Deps, paths: ProjectPaths, task: Task, branch: string, base: string): Promise<void> {
  // A mirrored task's camp is on its machine: its soldier rebases there, as before.
  if (task.machine) throw divergedRefusal(branch, base, "it runs on machine " + task.machine);
  await selfRebase(deps, paths, task, branch, base);
  if (!(await isFastForward(paths.project, branch, base, deps.exec))) throw divergedRefusal(branch, base, "it still diverges after the rebase");
}

/** CMD-LAND-02: when and as which base commit the mission landed; any status, `updated_at` untouched. */
async function recordLanded(deps: Deps, paths: ProjectPaths, id: string, commit: string | undefined): Promise<void> {
  await updateTask(paths, id, (t) => ({ ...t, landed_at: isoTime(deps.clock.now()), landed_commit: commit, land_rebase_from: undefined }));
}

export type LandOptions = {
  /** CMD-LAND-03's hint after the landing (`land --all` gives one at the end instead). */
  hint?: boolean;
};

/** Runs under the task's operation lock, so no prompt or strike of it interleaves. */
export async function landTask(deps: Deps, paths: ProjectPaths, id: string, opts: LandOptions = {}): Promise<number> {
  const project = paths.project;
  let task = requireTask(paths, id);
  // A mission on another machine: its branch fetched here first, then landed by the same rules (MCH-10).
  if (task.machine) await fetchMission(deps, paths, task);
  else if (task.land_rebase_from) {
    await recoverSelfRebase(deps, paths, task);
    task = requireTask(paths, id);
  }
  const { branch, base, fastForward } = await checkLandable(deps, project, task);
  if (!fastForward) await rebaseToLand(deps, paths, task, branch, base);
  try {
    await mergeFastForward(project, branch, deps.exec);
  } catch (err) {
    throw refused(errorMessage(err));
  }
  deps.stdout.write(`landed: fast-forwarded ${project} to ${branch}\n`);
  await recordDone(deps, paths, id);
  const landed = await commitOf(project, "HEAD", deps.exec);
  await recordLanded(deps, paths, id, landed);
  try {
    if (task.machine) await afterRemoteLanding(deps, paths, task, base);
    // A machine's own strike would take its still-running task for an abandoned one (T13): it is told of the landing.
    await strikeTask(deps, paths, id, { landed: true });
    if (task.machine) {
      await forgetFetched(deps, paths, branch);
      // The machine's strike relays its own copy of the task back; the landing is this machine's to record.
      await recordLanded(deps, paths, id, landed);
    }
  } catch (err) {
    const reason = err instanceof StrikeError ? err.reason : errorMessage(err);
    deps.stderr.write(`vx: landed, but automatic strike failed: ${reason} - retry with 'vx strike ${id}'\n`);
    return EXIT.error;
  }
  if (opts.hint !== false) await hintDiverged(deps, paths, [id], base);
  return EXIT.ok;
}

/**
 * CMD-LAND-03: the other missions in flight this landing left behind, named in one line the
 * commander can act on. Only a hint: the landing is done, so a failure to tell is said, not fatal.
 */
export async function hintDiverged(deps: Deps, paths: ProjectPaths, ids: readonly string[], base: string): Promise<void> {
  try {
    const others = sortTasks(listTasks(paths))
      .map((t) => t.value)
      .filter((t) => !ids.includes(t.id));
    const missions = missionsInFlight(others, leasedTasks(paths));
    const line = divergedLine(base, await divergedMissions(paths.project, base, missions, deps.exec));
    if (line) deps.stderr.write(`${line}\n`);
  } catch (err) {
    deps.stderr.write(`vx: could not tell which missions this landing diverged: ${errorMessage(err)}\n`);
  }
}
