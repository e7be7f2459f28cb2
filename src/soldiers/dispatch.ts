/**
 * A soldier started in its own camp (CMD-DISPATCH-02..06): the checks that need the project, then
 * ensure-running the sentinel, record the commander, lease a camp and save the task `pending` with
 * the camp fields at once (a later failure can then never leak a slot), and launch.
 */
import { backendFor } from "../backends";
import type { LaunchResult } from "../backends/terminal-types";
import { campBase, currentBranch, hasCommit, isClean } from "../camps/git";
import { acquireCamp, releaseLease } from "../camps/pool";
import { noteCommander } from "../commanders/resolve";
import type { Deps } from "../deps";
import { VxError } from "../errors";
import type { Project } from "../project";
import { ensureSentinel } from "../sentinel/ensure";
import { newTaskId } from "../state/ids";
import { ensureProjectRecord } from "../state/project-record";
import { SCHEMA_VERSION, type Task } from "../state/schemas";
import { createTask, isLeaseAbandoned, withTaskOp } from "../state/tasks";
import { isoTime } from "../time";
import { announceLaunch } from "./launch";
import { checkBackend, checkLaunchRefusal, checkSandbox } from "./launch-checks";
import { soldierTerminal } from "./terminal";

/** What the command decided: the prompt and every choice, checked. */
export type Order = {
  prompt: string;
  kind?: Task["kind"];
  harness: NonNullable<Task["harness"]>;
  backend: NonNullable<Task["backend"]>;
  model?: string;
  effort?: string;
};

export async function dispatchTask(deps: Deps, project: Project, flags: Order): Promise<LaunchResult> {
  const { harness, backend } = flags;
  const base = campBase(await currentBranch(project.paths.project, deps.exec));
  if (!(await hasCommit(project.paths.project, deps.exec))) {
    throw new VxError(`${base} has no commit yet, and a soldier's camp is forked from it - commit something first, then dispatch`);
  }
  // The harness first: one that cannot run on this backend at all is the clearer refusal.
  checkLaunchRefusal(deps, harness, backend);
  const workspace = checkBackend(deps, backend);
  await checkSandbox(deps, project);
  // A camp is a worktree of the base's last commit: edits not committed stay behind. A status
  // git cannot give costs the warning, never the dispatch.
  if (!(await isClean(project.paths.project, deps.exec, { ignoreUntracked: true }).catch(() => true))) {
    deps.stderr.write(
      `vx: warning: ${project.paths.project} has uncommitted changes the soldier's camp will not have (it starts from ${base}'s last commit) - commit them first if the soldier needs them\n`,
    );
  }

  ensureSentinel(deps, project.root);
  ensureProjectRecord(project.paths);
  const commander = await noteCommander(deps, project.root, project.paths, { warnOtherProject: true });

  const id = newTaskId();
  // The task's operation lock spans the lease and the whole launch: a strike of it waits
  // instead of releasing a camp the launch is still filling, and a lease whose task file does
  // not exist yet is never taken for a dead dispatch's leftover.
  return withTaskOp(project.paths, id, async () => {
    const abandoned = (t: string) => isLeaseAbandoned(project.paths, t);
    const camp = await acquireCamp(project.paths, { project: project.paths.project, taskId: id, base, exec: deps.exec, abandoned });
    if (camp.skipped.length > 0) {
      const list = camp.skipped.map((s) => `${s.slot} (${s.reason})`).join(", ");
      deps.stderr.write(`vx: warning: passed over idle camp slot(s) ${list}\n`);
    }
    const now = isoTime(deps.clock.now());
    const task: Task = {
      id,
      schema_version: SCHEMA_VERSION,
      kind: flags.kind ?? "mission",
      prompt: flags.prompt,
      status: "pending",
      created_at: now,
      updated_at: now,
      camp_slot: camp.slot,
      camp_path: camp.path,
      camp_branch: camp.branch,
      camp_base: base,
      backend,
      harness,
      model: flags.model,
      effort: flags.effort,
      ...commander,
      ...backendFor({ backend }).intent({ id, prompt: flags.prompt }, workspace),
    };
    try {
      await createTask(project.paths, task);
    } catch (err) {
      // No task records the lease, so nothing could ever strike it: give the camp back.
      await releaseLease(project.paths, id).catch(() => undefined);
      throw err;
    }
    announceLaunch(deps, task);
    return soldierTerminal(deps, project.paths, task, workspace).launch(task);
  });
}
