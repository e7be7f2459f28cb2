/**
 * `vx resume`'s lifecycle (CMD-RESUME-01/02): the same harness relaunched in the same camp with
 * its own continue arguments (its harness module's `continueArgs`), so the soldier picks its
 * conversation up where it stopped and every commit and uncommitted change in the camp stays. Unlike redispatch nothing in
 * the camp is touched: no reset, no camp setup, no lease change.
 */
import { composeOutput } from "../state/tasks";
import { guardedSave } from "../state/guarded";
import type { SoldierTerminal, LaunchResult, Relaunch } from "../backends/terminal-types";
import { backendFor } from "../backends";
import { backendOf } from "../backends/names";
import { assertCampOfPool, leaseOf } from "../camps/pool";
import { noteCommander } from "../commanders/resolve";
import type { Deps } from "../deps";
import { VxError, errorMessage } from "../errors";
import type { Project } from "../project";
import { ensureSentinel } from "../sentinel/ensure";
import { exists } from "../state/files";
import { ensureProjectRecord } from "../state/project-record";
import type { Task } from "../state/schemas";
import { EPISODE_CLEARS, requireLocalTask } from "../state/tasks";
import { isoTime } from "../time";
import { soldierTerminal } from "./terminal";
import { DEFAULT_HARNESS, harnessOf } from "../harnesses";
import { addAmendment, withAmendment } from "./amendments";
import { checkBackend, checkLaunchRefusal, checkSandbox } from "./launch-checks";
import { dispatchText, followUpText } from "./prompt-text";
import { pausePath, reportPath } from "../lifecycle/observe";

/** What the soldier is told when the general gives no text. */
export const RESUME_TEXT = "You were interrupted. Continue the task you were given; your work so far is in this directory.";

const RESUMABLE: readonly Task["status"][] = ["interrupted", "unconfirmed"];

/** CMD-RESUME-02's status and camp refusals; undefined when the task may be resumed. */
function resumeRefusal(task: Task, leased: boolean): string | undefined {
  // A failed soldier never got its prompt (T3/T4): there is no conversation to continue, and its camp may be back in the pool.
  if (task.status === "failed") return `task ${task.id} is failed - vx could not start or prompt its soldier, so there is nothing to resume; run it again with 'vx redispatch ${task.id}'`;
  if (!RESUMABLE.includes(task.status)) return `task ${task.id} is ${task.status} - only an interrupted or unconfirmed task can be resumed`;
  if (!leased || !task.camp_path || !exists(task.camp_path)) return `task ${task.id}'s camp was already struck - redispatch it instead`;
  return undefined;
}

/** How a refusal names the soldier's pane: as its backend recorded it. */
function paneName(terminal: SoldierTerminal, task: Task): string {
  const name = backendFor(task).paneName(task);
  return name ? `${terminal.pane} ${name}` : terminal.pane;
}

/**
 * The harness's continue flag and the text to submit. A harness without a continue flag starts
 * fresh, so it gets the original dispatch text with the resume text after it.
 */
async function relaunchOf(deps: Deps, project: Project, task: Task, text: string): Promise<Relaunch> {
  const harness = harnessOf(task.harness);
  const args = await harness.continueArgs({ exec: deps.exec, env: deps.env, camp: task.camp_path! });
  if (args) return { args, text: followUpText(text) };
  deps.stderr.write(`vx: no ${harness.name} session to continue for this camp - it starts afresh in the same camp with the original prompt\n`);
  const { paths } = project;
  const prompt = `${task.prompt}\n\n${text}`;
  return { args: [], text: dispatchText({ prompt, kind: task.kind, reportPath: reportPath(paths, task), pauseFile: pausePath(paths, task) }) };
}

/** Runs under the task's operation lock: a second resume waits, then finds the soldier running. */
export async function resumeTask(deps: Deps, project: Project, id: string, text: string | undefined): Promise<LaunchResult> {
  const { paths } = project;
  const task = requireLocalTask(paths, id, "resume");
  const lease = leaseOf(paths, id);
  const refusal = resumeRefusal(task, lease !== undefined);
  if (refusal) throw new VxError(refusal);
  // The recorded camp must be this task's camp of the pool before a harness is started in it.
  await assertCampOfPool(paths, { taskId: id, slot: lease!.number, path: task.camp_path! }, deps.exec);
  const workspace = checkBackend(deps, backendOf(task));
  checkLaunchRefusal(deps, task.harness ?? DEFAULT_HARNESS, backendOf(task));
  await checkSandbox(deps, project, "resume");

  const old = soldierTerminal(deps, paths, task);
  if (await old.live(task)) throw new VxError(`task ${id}'s soldier is still running in ${paneName(old, task)} - use 'vx prompt' instead`);
  const said = text ?? RESUME_TEXT;
  const relaunch = await relaunchOf(deps, project, task, said);
  // A pane or tab left behind (herdr restores its layout after a restart, without the harness).
  if (backendFor(task).hasPane(task)) {
    await old.close(task).catch((err: unknown) => deps.stderr.write(`vx: warning: ${errorMessage(err).replace("could not close the soldier's", "could not close the old")}\n`));
  }

  ensureSentinel(deps, project.root);
  ensureProjectRecord(paths);
  const commander = await noteCommander(deps, project.root, paths);
  const saved = await guardedSave(paths, id, task, {
    ...commander,
    ...EPISODE_CLEARS,
    status: "pending",
    updated_at: isoTime(deps.clock.now()),
    backend: backendOf(task),
    ...backendFor(task).relaunch(task, workspace, true),
    resumes: (task.resumes ?? 0) + 1,
  });
  if (!saved.written)
    throw new VxError(
      `task ${id} changed while it was being resumed (it is now ${saved.task.status}) - nothing was relaunched; see 'vx status', then resume it again if it is still interrupted or unconfirmed`,
    );

  const result = await soldierTerminal(deps, paths, saved.task, workspace).launch(saved.task, relaunch);
  if (result.task.status === "failed") return { task: await interruptedAgain(deps, project, result.task), error: result.error };
  // Recorded once the text went in: whatever the soldier's status is by now, it was told this.
  const amended = await addAmendment(paths, id, (cur) => ({ amendments: withAmendment(cur.amendments, said, "vx resume", isoTime(deps.clock.now())) }));
  return { task: amended, error: result.error };
}

/**
 * A relaunch that failed leaves the task `interrupted` again rather than `failed`: its camp and
 * its work are untouched, so it can be resumed (or redispatched) once the cause is fixed.
 */
async function interruptedAgain(deps: Deps, project: Project, failed: Task): Promise<Task> {
  const note = "[vexillum] 'vx resume' could not relaunch this soldier - marked interrupted again; its camp and work are as they were.";
  const saved = await guardedSave(project.paths, failed.id, failed, {
    status: "interrupted",
    updated_at: isoTime(deps.clock.now()),
    output: composeOutput(undefined, failed.output, [note]),
  });
  return saved.task;
}
