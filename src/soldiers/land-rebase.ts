/**
 * Land's own rebase of a diverged mission (CMD-LAND-04/05): only under an idle soldier, in its camp, after recording the branch's
 * commit in the task file; a conflict leaves the camp and branch as they were, and a land cut short (kill -9) is finished or
 * undone by the next land before anything else.
 */
import { currentBranch, isClean } from "../camps/git";
import { assertCampOfPool, campPath, leaseOf } from "../camps/pool";
import { abortRebase, commitOf, rebaseCamp, rebaseInProgress } from "../camps/rebase";
import { reportedStatus } from "../backends/reported";
import type { Deps } from "../deps";
import { VxError, errorMessage } from "../errors";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { updateTask } from "../state/tasks";

/** The diverged refusal: a conflict (or a rebase land cannot do) goes back to the soldier. */
export function divergedRefusal(branch: string, base: string, why: string): VxError {
  return new VxError(`${branch} is not a fast-forward of ${base} and ${why} - have the soldier rebase ${branch} onto ${base}, then retry`);
}

/** Why the soldier counts as working (CMD-LAND-04), or undefined when it is idle: its status, else a newer `working` report. */
export function workingReason(paths: ProjectPaths, task: Task): string | undefined {
  if (task.status === "running" || task.status === "pending") return `task ${task.id} is ${task.status} (its soldier is working)`;
  if (reportedStatus(task, paths).status === "working") return `task ${task.id}'s soldier reported itself working`;
  return undefined;
}

function short(commit: string | undefined): string {
  return commit ? commit.slice(0, 12) : "(none)";
}

async function setRebaseFrom(paths: ProjectPaths, id: string, from: string | undefined): Promise<void> {
  await updateTask(paths, id, (t) => (t.land_rebase_from === from ? undefined : { ...t, land_rebase_from: from }));
}

/** The task's camp, checked as the pool's (CMD-STRIKE's guard) before any git that writes there. */
async function leasedCamp(deps: Deps, paths: ProjectPaths, task: Task): Promise<string | undefined> {
  const slot = leaseOf(paths, task.id);
  if (!slot) return undefined;
  const camp = task.camp_path ?? campPath(paths, paths.project, slot.number);
  const ok = await assertCampOfPool(paths, { taskId: task.id, slot: slot.number, path: camp }, deps.exec, { allowGone: true });
  return ok ? camp : undefined;
}

/**
 * CMD-LAND-05: a land's own rebase cut short leaves `land_rebase_from` set. A rebase still stopped in the camp is aborted (the
 * branch back at its recorded commit); one that finished stands (the same changes on the new base). Then the record is cleared.
 */
export async function recoverSelfRebase(deps: Deps, paths: ProjectPaths, task: Task): Promise<void> {
  const from = task.land_rebase_from;
  if (!from || !task.camp_branch) return;
  const branch = task.camp_branch;
  const camp = await leasedCamp(deps, paths, task);
  if (camp && (await rebaseInProgress(camp, deps.exec))) {
    try {
      await abortRebase(camp, deps.exec);
    } catch (err) {
      throw new VxError(`land refused: an earlier land's rebase of ${branch} was cut short and could not be undone: ${errorMessage(err)} - run 'git -C ${camp} rebase --abort' there, then retry`);
    }
  }
  const now = await commitOf(paths.project, `refs/heads/${branch}`, deps.exec);
  const what = now === from ? `undone, ${branch} is back at ${short(from)}` : `it had finished: ${branch} is at ${short(now)} (was ${short(from)})`;
  deps.stderr.write(`vx: an earlier land's rebase of ${branch} was cut short; ${what}\n`);
  await setRebaseFrom(paths, task.id, undefined);
}

/**
 * CMD-LAND-04: rebases `branch` onto `base` in the task's camp so it fast-forwards. Refused (nothing changed) when the soldier is
 * working, the camp is not its leased camp on `branch`, or holds uncommitted work; a conflict is aborted and refused.
 */
export async function selfRebase(deps: Deps, paths: ProjectPaths, task: Task, branch: string, base: string): Promise<void> {
  const working = workingReason(paths, task);
  if (working) throw new VxError(`${branch} is not a fast-forward of ${base} and ${working} - land rebases a branch only under an idle soldier; wait for its wake, then retry`);
  const camp = await leasedCamp(deps, paths, task);
  if (!camp) throw divergedRefusal(branch, base, `task ${task.id}'s camp is not leased or is missing, so land cannot rebase it`);
  if ((await currentBranch(camp, deps.exec)) !== branch) throw divergedRefusal(branch, base, `its camp ${camp} is not on ${branch}`);
  if (!(await isClean(camp, deps.exec))) throw divergedRefusal(branch, base, `its camp has uncommitted changes`);
  const from = await commitOf(paths.project, `refs/heads/${branch}`, deps.exec);
  const onto = await commitOf(paths.project, `refs/heads/${base}`, deps.exec);
  if (!from || !onto) throw divergedRefusal(branch, base, `land could not read ${from ? base : branch}`);
  // Recorded first: a kill -9 from here on leaves the next land what it needs to undo or finish this one.
  await setRebaseFrom(paths, task.id, from);
  const outcome = await rebaseCamp(camp, onto, deps.exec);
  if (!outcome.ok) {
    const after = await commitOf(paths.project, `refs/heads/${branch}`, deps.exec);
    if (after !== from) throw new VxError(`land refused: the rebase of ${branch} failed and left it at ${short(after)}, not ${short(from)} - check ${camp}, then retry`);
    await setRebaseFrom(paths, task.id, undefined);
    const why = outcome.conflicts.length > 0 ? `rebasing it would conflict in ${listed(outcome.conflicts)}` : `land could not rebase it (${outcome.reason})`;
    throw divergedRefusal(branch, base, why);
  }
  await setRebaseFrom(paths, task.id, undefined);
  deps.stderr.write(`vx: rebased ${branch} onto ${base} in its camp (was ${short(from)})\n`);
}

function listed(files: readonly string[]): string {
  const shown = files.slice(0, 5).join(", ");
  return files.length > 5 ? `${shown} and ${files.length - 5} more` : shown;
}
