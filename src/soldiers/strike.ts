/**
 * Striking a soldier's camp (CMD-STRIKE-01..03), shared by `vx strike` and the automatic strike
 * after `vx land`. The camp lease is the commit point: every step before clearing it can be
 * repeated safely, so a strike that fails half-way is retried with the same command, and nothing
 * touches the worktree once another dispatch could lease it.
 */
import { composeOutput } from "../state/tasks";
import { removeSoldierFiles, warnTo } from "../state/soldier-state";
import { type DiscardedWork, deleteBranch, discardedWork, isAncestor, isClean, isLanded, pruneWorktrees, resetCamp, runGit, GitError, GIT_WRITE_TIMEOUT_MS } from "../camps/git";
import { assertCampOfPool, campBranch, campPath, leaseOf, releaseLease } from "../camps/pool";
import { type BackendName, backendOf } from "../backends/names";
import { BACKENDS } from "../backends";
import type { Deps } from "../deps";
import { VxError, errorMessage } from "../errors";
import { reportPath } from "../lifecycle/observe";
import { exists } from "../state/files";
import type { ProjectPaths } from "../state/paths";
import type { Task, TaskStatus } from "../state/schemas";
import { EPISODE_CLEARS, requireTask, updateTask, withTaskOp } from "../state/tasks";
import { runThere } from "./remote-task";
import { hooksDir } from "../backends/soldier-env";
import { soldierTerminal } from "./terminal";
import { isoTime } from "../time";

/** A strike that did not happen (or stopped before its commit point); `reason` has no prefix. */
export class StrikeError extends VxError {
  readonly reason: string;
  constructor(reason: string, prefix: "strike refused" | "strike failed" = "strike refused") {
    super(`${prefix}: ${reason}`);
    this.name = "StrikeError";
    this.reason = reason;
  }
}

export type StrikeOptions = {
  /** Skip only the scout report check (CMD-STRIKE-01). */
  force?: boolean;
  /** Strike even when unlanded or dirty, resetting the worktree (CMD-STRIKE-02). */
  discard?: boolean;
  /** Its work was landed (on the commander's machine, MCH-10): T12 first, so the strike never reads it as abandoned. */
  landed?: boolean;
};

/** Statuses T12 moves to `done`; any other status is left exactly as it is. */
const T12_FROM: readonly TaskStatus[] = ["running", "blocked", "unconfirmed"];

/** T12, re-checking the status under the task lock. */
export async function recordDone(deps: Deps, paths: ProjectPaths, id: string): Promise<void> {
  await updateTask(paths, id, (t) => {
    if (!T12_FROM.includes(t.status)) return undefined;
    return {
      ...t,
      status: "done",
      updated_at: isoTime(deps.clock.now()),
      ...EPISODE_CLEARS,
    };
  });
}

type StrikeResult = {
  backend: BackendName;
  /** The task's status after the strike (`interrupted` when T13 applied). */
  status: TaskStatus;
  branchDeleted: boolean;
};

/** Statuses T13 moves to `interrupted`: the soldier may still have been alive in its pane. */
const T13_FROM: readonly TaskStatus[] = ["pending", "running", "blocked"];

/** TSK-07 note recorded by T13. */
function struckNote(status: TaskStatus): string {
  return `[vexillum] struck while ${status} - 'vx strike' closed its pane.`;
}

/** MCH-10: the machine's own vx strikes its camp; the mirror then says what it recorded. */
async function strikeThere(deps: Deps, paths: ProjectPaths, task: Task, opts: StrikeOptions): Promise<StrikeResult> {
  const words = ["strike", task.id, ...(opts.force ? ["--force"] : []), ...(opts.discard ? ["--discard"] : []), ...(opts.landed ? ["--landed"] : [])];
  const code = await runThere(deps, paths, task, words);
  if (code !== 0) throw new StrikeError(`the strike on machine ${task.machine} ended with exit ${code} (its lines above)`, "strike failed");
  const after = requireTask(paths, task.id);
  return { backend: backendOf(task), status: after.status, branchDeleted: true };
}

/**
 * Strikes `taskId`'s camp in the project of `paths` and prints what it did: the discarded work
 * (with `discard`), warnings on stderr, and the `struck:` line on stdout. Refusals and failures
 * before the lease is cleared throw StrikeError and leave the camp leased.
 */
export function strikeTask(deps: Deps, paths: ProjectPaths, taskId: string, opts: StrikeOptions = {}): Promise<StrikeResult> {
  // Under the task's operation lock: a launch still filling this camp finishes first.
  return withTaskOp(paths, taskId, () => strikeLocked(deps, paths, taskId, opts));
}

async function strikeLocked(deps: Deps, paths: ProjectPaths, taskId: string, opts: StrikeOptions): Promise<StrikeResult> {
  if (opts.landed) await recordDone(deps, paths, taskId);
  const task = requireTask(paths, taskId);
  if (task.machine) return strikeThere(deps, paths, task, opts);
  const branch = task.camp_branch ?? campBranch(taskId);
  const slot = leaseOf(paths, taskId);
  if (!slot) throw new StrikeError(`task ${taskId}'s camp is not leased (already struck)`);
  const base = task.camp_base;
  if (!base) throw new StrikeError(`task ${taskId} has no camp base recorded`);
  const camp = task.camp_path ?? campPath(paths, paths.project, slot.number);
  // Before anything changes: a camp path that is not this task's camp of the pool (the project
  // checkout, another worktree) is refused outright; one whose worktree is gone gets no git at all.
  const guard = { taskId, slot: slot.number, path: camp };
  const campOk = await assertCampOfPool(paths, guard, deps.exec, { allowGone: true });
  if (!campOk && !opts.discard) {
    throw new StrikeError(`camp of task ${taskId} at ${camp} is missing or is not a worktree of this project - strike with --discard to release it anyway`);
  }
  if (campOk && !opts.discard) await requireLanded(deps, camp, taskId, branch, base);
  if (task.kind === "scout") checkReport(deps, paths, task, opts.force === true);

  const leftRunning = await closeSoldierPane(deps, paths, task);
  if (campOk) {
    // Again right before the reset or detach: closing the pane can take a while.
    await assertCampOfPool(paths, guard, deps.exec);
    await dismantle(deps, camp, base, opts.discard === true);
  } else {
    deps.stderr.write(`vx: camp ${camp} is missing or is not a worktree of this project, nothing to discard\n`);
  }
  if (!(await releaseLease(paths, taskId))) {
    // Another strike got there between our check and now; it did (or is doing) the rest.
    throw new StrikeError(`task ${taskId}'s camp is not leased (already struck)`);
  }

  const branchDeleted = await deleteIfLanded(deps, paths.project, campOk ? camp : paths.project, branch, base);
  try {
    await pruneWorktrees(paths.project, deps.exec);
  } catch (err) {
    deps.stderr.write(`vx: ${errorMessage(err)}\n`);
  }
  removeSoldierFiles(paths, taskId, hooksDir(paths, taskId), warnTo(deps.stderr));
  const status = await recordStruck(deps, paths, taskId);
  const backend = backendOf(task);
  const closed = leftRunning ?? `${BACKENDS[backend].closed} closed`;
  deps.stdout.write(`struck: camp returned to the pool, ${closed}.\n`);
  return { backend, status, branchDeleted };
}

async function requireLanded(deps: Deps, camp: string, taskId: string, branch: string, base: string): Promise<void> {
  if (!(await isClean(camp, deps.exec))) throw new StrikeError(`camp of task ${taskId} has uncommitted changes`);
  const landed = await isLanded(camp, base, deps.exec);
  if (landed === undefined) throw new StrikeError(`could not tell whether ${branch} is landed in ${base}`);
  if (!landed) {
    throw new StrikeError(`${branch} is not landed in ${base} - land it first, or strike with --discard (only with the general's approval)`);
  }
}

function checkReport(deps: Deps, paths: ProjectPaths, task: Task, force: boolean): void {
  const report = reportPath(paths, task);
  if (exists(report)) return;
  if (!force) throw new StrikeError(`scout task ${task.id} has no report at ${report}`);
  deps.stderr.write(`vx: --force: striking scout task ${task.id} without its report at ${report}\n`);
}

/**
 * Closes the soldier's herdr tab (or pane) or tmux session; one already gone counts as closed.
 * Returns what was left running instead (a tmux session that is not the task's, outside the camp).
 * Any other failure stops the strike with the camp still leased: a soldier left alive in a camp
 * the pool hands out again would share its worktree with the next one.
 */
async function closeSoldierPane(deps: Deps, paths: ProjectPaths, task: Task): Promise<string | undefined> {
  try {
    return (await soldierTerminal(deps, paths, task).close(task)) || undefined;
  } catch (err) {
    throw new StrikeError(errorMessage(err), "strike failed");
  }
}

/**
 * Detaches the camp at base so its branch can be deleted (git refuses to delete a branch a
 * worktree has checked out). With `discard`, first prints and then throws away everything the
 * camp holds beyond base; the listing is taken after the pane closed, so nothing escapes it.
 */
async function dismantle(deps: Deps, camp: string, base: string, discard: boolean): Promise<void> {
  if (discard) {
    printDiscarded(deps, await discardedWork(camp, base, deps.exec));
    await resetCamp(camp, base, deps.exec);
    return;
  }
  // Not resetCamp: a plain checkout never destroys anything that appeared since the checks.
  const args = ["checkout", "--quiet", "--detach", base];
  const res = await runGit(deps.exec, camp, args, GIT_WRITE_TIMEOUT_MS);
  if (res.code !== 0) throw new StrikeError(new GitError(["git", ...args], camp, res).message, "strike failed");
}

function printDiscarded(deps: Deps, work: DiscardedWork): void {
  const lines = [...work.commits.map((c) => `discarded commit ${c.hash} ${c.subject}`), ...work.changes.map((c) => `discarded uncommitted change: ${c}`)];
  if (lines.length) deps.stdout.write(`${lines.join("\n")}\n`);
}

/**
 * Deletes `branch` with `git branch -d` run in `dir`. In the camp, detached at base, `-d` judges
 * "merged" against base itself rather than whatever the project checkout has checked out.
 */
async function deleteIfLanded(deps: Deps, project: string, dir: string, branch: string, base: string): Promise<boolean> {
  let ancestor: boolean;
  try {
    ancestor = await isAncestor(project, `refs/heads/${branch}`, base, deps.exec);
  } catch {
    ancestor = false; // the branch is gone or unreadable: nothing to delete safely
  }
  if (!ancestor) {
    const gone = (await runGit(deps.exec, project, ["show-ref", "--verify", "--quiet", `refs/heads/${branch}`])).code !== 0;
    if (!gone) deps.stderr.write(`vx: kept branch ${branch}: it is not an ancestor of ${base}\n`);
    return false;
  }
  const res = await deleteBranch(dir, branch, {}, deps.exec);
  if (!res.deleted) deps.stderr.write(`vx: kept branch ${branch}: ${res.reason}\n`);
  return res.deleted;
}

/** T13 under the task lock, re-checking the status there; returns the status as saved. */
async function recordStruck(deps: Deps, paths: ProjectPaths, taskId: string): Promise<TaskStatus> {
  let status: TaskStatus | undefined;
  const now = isoTime(deps.clock.now());
  const saved = await updateTask(paths, taskId, (t) => {
    status = t.status;
    // Every strike is recorded (the board and status tell a struck task from one waiting); only T13 changes the status.
    if (!T13_FROM.includes(t.status)) return { ...t, struck_at: now };
    return {
      ...t,
      status: "interrupted",
      updated_at: now,
      struck_at: now,
      output: composeOutput(undefined, t.output, [struckNote(t.status)]),
      ...EPISODE_CLEARS,
    };
  });
  return saved?.status ?? status!;
}
