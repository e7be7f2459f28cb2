/**
 * The re-run of an interrupted or failed task under the same id (CMD-REDISPATCH-01/02, T11): the old camp's
 * work, report and pause discarded, then a fresh camp and launch; a launch that fails again gives its camp
 * back. `commands/redispatch.ts` checks the arguments.
 */
import { agentName } from "../backends/soldier-name";
import { backendFor } from "../backends";
import { backendOf } from "../backends/names";
import type { LaunchResult } from "../backends/terminal-types";
import { campBase, currentBranch, deleteBranch, pruneWorktrees, resetCamp } from "../camps/git";
import { acquireCamp, assertCampOfPool, campBranch, readPool, releaseLease } from "../camps/pool";
import { noteCommander } from "../commanders/resolve";
import type { Deps } from "../deps";
import { VxError, errorMessage } from "../errors";
import { DEFAULT_HARNESS } from "../harnesses/names";
import { pausePath, reportPath } from "../lifecycle/observe";
import type { Project } from "../project";
import { ensureSentinel } from "../sentinel/ensure";
import { exists, removeFile } from "../state/files";
import { guardedSave } from "../state/guarded";
import type { Choice } from "../state/models";
import { ensureProjectRecord } from "../state/project-record";
import type { Task } from "../state/schemas";
import { EPISODE_CLEARS, isLeaseAbandoned, requireLocalTask } from "../state/tasks";
import { isoTime } from "../time";
import { checkBackend, checkLaunchRefusal, checkSandbox } from "./launch-checks";
import { soldierTerminal } from "./terminal";

function warn(deps: Deps, text: string): void {
  deps.stderr.write(`vx: warning: ${text}\n`);
}

/**
 * The old camp's path when it is still this task's to discard: leased by it, or idle (struck)
 * with its branch still checked out; undefined when there is nothing to discard. A slot another
 * task now leases is never touched, and a camp path that is not the task's camp of the pool
 * (the project checkout, say) refuses the redispatch before anything has changed.
 */
async function oldCampToDiscard(deps: Deps, project: Project, task: Task): Promise<string | undefined> {
  if (task.camp_slot === undefined || !task.camp_path || !task.camp_base || !exists(task.camp_path)) return undefined;
  const slot = readPool(project.paths).slots.find((s) => s.number === task.camp_slot);
  if (!slot || (slot.leased_by && slot.leased_by !== task.id)) return undefined;
  const guard = { taskId: task.id, slot: slot.number, path: task.camp_path };
  if (!(await assertCampOfPool(project.paths, guard, deps.exec, { allowGone: true }))) return undefined;
  if (slot.leased_by === task.id) return task.camp_path;
  const onBranch = (await currentBranch(task.camp_path, deps.exec).catch(() => undefined)) === campBranch(task.id);
  return onBranch ? task.camp_path : undefined;
}

/** The old run's pane or tab closed, verified as its own; false (with a warning) when it could not be. */
async function closeOldPane(deps: Deps, project: Project, task: Task, what: string): Promise<boolean> {
  if (!backendFor(task).hasPane(task)) return true;
  try {
    await soldierTerminal(deps, project.paths, task).close(task);
    return true;
  } catch (err) {
    warn(deps, errorMessage(err).replace("could not close the soldier's", `could not close the ${what}`));
    return false;
  }
}

/** The camp reset to its base and returned to the pool, the branch deleted, the run's report and pause removed; problems are warnings. */
async function discardCamp(deps: Deps, project: Project, task: Task, oldCamp: string | undefined): Promise<void> {
  const { paths } = project;
  const branch = campBranch(task.id);
  if (oldCamp && task.camp_base && task.camp_slot !== undefined) {
    // Again right before the reset: the commander and sentinel steps ran since the first check.
    await assertCampOfPool(paths, { taskId: task.id, slot: task.camp_slot, path: oldCamp }, deps.exec);
    try {
      await resetCamp(oldCamp, task.camp_base, deps.exec);
    } catch (err) {
      warn(deps, `could not reset the old camp ${oldCamp}: ${errorMessage(err)}`);
    }
  }
  await pruneWorktrees(paths.project, deps.exec).catch(() => undefined);
  const deleted = await deleteBranch(paths.project, branch, { force: true }, deps.exec);
  if (!deleted.deleted && !deleted.reason.endsWith("does not exist")) warn(deps, `could not delete ${branch}: ${deleted.reason}`);
  await releaseLease(paths, task.id);

  // The same id (and usually the same name) comes back, so an old report or pause would be
  // mistaken for the new run's.
  const names = new Set([backendFor(task).soldierName(task), agentName(task.prompt, task.id)].filter(Boolean) as string[]);
  for (const name of names) {
    removeFile(reportPath(paths, task, name));
    removeFile(pausePath(paths, task, name));
  }
}

/**
 * T3/T4 of the re-run: the task stays `failed` with its reason, and the fresh camp goes back to the pool
 * (it holds nothing: the soldier never got its prompt), unless a pane of it could not be closed: then the
 * camp stays leased, for strike, rather than go to another task under a harness that may still run in it.
 */
async function returnFailedCamp(deps: Deps, project: Project, failed: Task): Promise<void> {
  if (!(await closeOldPane(deps, project, failed, "failed run's"))) {
    warn(deps, `the camp of task ${failed.id} stays leased - strike it with 'vx strike --discard ${failed.id}', or redispatch it again`);
    return;
  }
  await discardCamp(deps, project, failed, await oldCampToDiscard(deps, project, failed)).catch((err: unknown) =>
    warn(deps, `the camp of task ${failed.id} was not returned to the pool (${errorMessage(err)}) - strike it with 'vx strike --discard ${failed.id}'`),
  );
}

/** T11: what a redispatch takes up: a soldier vx lost (`interrupted`) or never got going (`failed`, T3/T4). */
const REDISPATCHABLE: readonly Task["status"][] = ["interrupted", "failed"];

/** CMD-REDISPATCH-01's status refusal; undefined when the task may be redispatched. */
function redispatchRefusal(task: Task): string | undefined {
  if (REDISPATCHABLE.includes(task.status)) return undefined;
  return `task ${task.id} is ${task.status} - only an interrupted or failed task can be redispatched`;
}

/** Runs under the task's operation lock: a second redispatch waits, then finds it no longer interrupted or failed. */
export async function redispatchTask(deps: Deps, project: Project, id: string, choice: Choice | undefined): Promise<LaunchResult> {
  const task = requireLocalTask(project.paths, id, "redispatch");
  const refusal = redispatchRefusal(task);
  if (refusal) throw new VxError(refusal);
  const harness = choice?.harness ?? task.harness ?? DEFAULT_HARNESS;
  checkLaunchRefusal(deps, harness, backendOf(task), "redispatch with --profile <name> naming a profile of another harness (vx models lists them)");
  const workspace = checkBackend(deps, backendOf(task));
  const base = campBase(task.camp_base ?? (await currentBranch(project.paths.project, deps.exec)));
  const oldCamp = await oldCampToDiscard(deps, project, task);
  await checkSandbox(deps, project, "redispatch");

  ensureSentinel(deps, project.root);
  ensureProjectRecord(project.paths);
  const commander = await noteCommander(deps, project.root, project.paths);
  // The pane first: nothing of the old run is left writing into the camp while it is reset.
  await closeOldPane(deps, project, task, "old");
  await discardCamp(deps, project, task, oldCamp);

  const abandoned = (t: string) => isLeaseAbandoned(project.paths, t);
  const camp = await acquireCamp(project.paths, { project: project.paths.project, taskId: id, base, exec: deps.exec, abandoned });
  let saved: Awaited<ReturnType<typeof guardedSave>>;
  try {
    saved = await guardedSave(project.paths, id, task, {
      ...commander,
      status: "pending",
      updated_at: isoTime(deps.clock.now()),
      camp_slot: camp.slot,
      camp_path: camp.path,
      camp_branch: camp.branch,
      camp_base: base,
      backend: backendOf(task),
      ...backendFor(task).relaunch(task, workspace, false),
      output: undefined,
      decision: undefined,
      // A fresh camp: no longer struck, and no land of the old one in flight.
      struck_at: undefined,
      land_rebase_from: undefined,
      ...EPISODE_CLEARS,
      redispatches: (task.redispatches ?? 0) + 1,
      ...(choice ?? {}),
    });
  } catch (err) {
    // The old camp fields still name the old lease: nothing would ever release this one.
    await releaseLease(project.paths, id).catch(() => undefined);
    throw err;
  }
  if (!saved.written) {
    await releaseLease(project.paths, id);
    throw new VxError(`task ${id} changed while it was being redispatched (it is now ${saved.task.status}) - nothing was relaunched`);
  }
  const result = await soldierTerminal(deps, project.paths, saved.task, workspace).launch(saved.task);
  if (result.task.status === "failed") await returnFailedCamp(deps, project, result.task);
  return result;
}
