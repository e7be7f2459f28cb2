/**
 * A lifecycle command for a task mirrored from another machine (MCH-10): run by that machine's own vx in the project's
 * clone there (user text on stdin), its output passed through, the mirror refreshed from the task file there; a landing
 * fetches the mission's branch first and gives the machine the landed base before its strike.
 */
import * as v from "valibot";
import { deleteBranch, runGitWith } from "../camps/git";
import type { Deps } from "../deps";
import { VxError } from "../errors";
import { refreshMirror } from "../machines/mirror";
import { machineNamed } from "../machines/registry";
import { gitUrl, prepareRemoteProject } from "../machines/remote-project";
import { type Reach, gitSshCommand, inDir, lastLine, markedLines, shScript, sshOrFail } from "../machines/ssh";
import { type ProjectPaths, projectKey } from "../state/paths";
import { type Machine, type Task, TaskSchema } from "../state/schemas";
import { requireTask } from "../state/tasks";
import { GUARDS } from "../time";

type There = Reach & { machine: Machine; dir: string };

function there(paths: ProjectPaths, task: Task): There {
  const machine = machineNamed(paths.root, task.machine ?? "");
  if (!task.remote_project)
    throw new VxError(`task ${task.id} names machine ${task.machine} but not its clone there - its mirror is incomplete - repair its task file (remote_project) or move it aside`);
  return { name: task.machine ?? "", destination: machine.destination, machine, dir: task.remote_project };
}

/** The task when it runs on another machine (its command then runs there), else undefined. */
export function mirroredTask(paths: ProjectPaths, id: string): Task | undefined {
  const task = requireTask(paths, id);
  return task.machine ? task : undefined;
}

/** The task file there, read once: the mirror takes its mirrored fields. */
async function refresh(deps: Pick<Deps, "exec" | "env">, paths: ProjectPaths, task: Task, to: There): Promise<void> {
  const rel = `.vexillum/projects/${projectKey(to.dir)}/tasks/${task.id}.json`;
  const res = await sshOrFail(deps, paths.root, to, shScript('cat "$HOME/$1"', [rel]), { timeoutMs: GUARDS.sshProbe });
  if (res.code !== 0) return;
  try {
    const parsed = v.safeParse(TaskSchema, JSON.parse(res.stdout));
    if (parsed.success) await refreshMirror(paths, to.name, parsed.output);
  } catch {
    // The relay brings it later.
  }
}

/** `vx <words...>` there for `task`; its exit code. stdout as it is, stderr lines marked with the machine. */
export async function runThere(deps: Deps, paths: ProjectPaths, task: Task, words: readonly string[], stdin?: string): Promise<number> {
  const to = there(paths, task);
  const res = await sshOrFail(deps, paths.root, to, inDir(to.dir, [to.machine.vx_path, ...words]), { stdin, timeoutMs: GUARDS.sshCommand });
  deps.stdout.write(res.stdout);
  deps.stderr.write(markedLines(to.name, res.stderr));
  await refresh(deps, paths, task, to);
  return res.code;
}

/** The mission's branch from its camp there into this checkout, under the same name. */
export async function fetchMission(deps: Deps, paths: ProjectPaths, task: Task): Promise<void> {
  const to = there(paths, task);
  const branch = task.camp_branch;
  if (!branch) throw new VxError(`land refused: task ${task.id} has no camp branch recorded`);
  const sshCommand = gitSshCommand(paths.root, to.destination);
  const args = ["fetch", "-q", "--upload-pack=git upload-pack", gitUrl(to.destination, to.dir), `+refs/heads/${branch}:refs/heads/${branch}`];
  const res = await runGitWith(deps.exec, paths.project, args, { GIT_SSH_COMMAND: sshCommand });
  if (res.code !== 0) throw new VxError(`land refused: could not fetch ${branch} from machine ${to.name}: ${lastLine(res.stderr)}`);
}

/** After a landing here: the machine's clone gets the landed base (so its strike finds the work landed), and the fetched branch goes. */
export async function afterRemoteLanding(deps: Deps, paths: ProjectPaths, task: Task, base: string): Promise<void> {
  const to = there(paths, task);
  await prepareRemoteProject(deps, paths.root, to, paths, base);
}

export async function forgetFetched(deps: Deps, paths: ProjectPaths, branch: string): Promise<void> {
  const res = await deleteBranch(paths.project, branch, {}, deps.exec);
  if (!res.deleted) deps.stderr.write(`vx: the fetched ${branch} stays here: ${res.reason}\n`);
}
