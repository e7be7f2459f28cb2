/**
 * `vx dispatch --on <machine>` (MCH-06): the project's clone there brought up to date, the dispatch run by that machine's
 * own vx in it (the prompt on stdin, never on a command line), its report passed through, and the task mirrored here.
 */
import { campBase, currentBranch, hasCommit } from "../camps/git";
import { noteCommander } from "../commanders/resolve";
import type { Deps } from "../deps";
import { VxError } from "../errors";
import { noteDispatch } from "../machines/link-state";
import { saveDispatchedMirror } from "../machines/mirror";
import { machineNamed } from "../machines/registry";
import { prepareRemoteProject } from "../machines/remote-project";
import { inDir, markedLines, sshOrFail } from "../machines/ssh";
import type { Project } from "../project";
import { ensureSentinel } from "../sentinel/ensure";
import { ensureProjectRecord } from "../state/project-record";
import { SCHEMA_VERSION, type Task } from "../state/schemas";
import { GUARDS, isoTime } from "../time";
import type { Order } from "./dispatch";

const STATUSES = ["pending", "running", "blocked", "done", "failed", "interrupted", "unconfirmed"] as const;

/** The remote's dispatch arguments: the order's choices, the prompt on stdin. */
function dispatchWords(vxPath: string, order: Order): string[] {
  const words = [vxPath, "dispatch", "--stdin", "--harness", order.harness, "--backend", order.backend];
  if (order.kind) words.push("--kind", order.kind);
  if (order.model !== undefined) words.push("--model", order.model);
  if (order.effort !== undefined) words.push("--effort", order.effort);
  return words;
}

export async function dispatchOn(deps: Deps, project: Project, order: Order, name: string): Promise<number> {
  const root = project.root;
  const machine = machineNamed(root, name);
  const to = { name, destination: machine.destination, machine };
  const base = campBase(await currentBranch(project.paths.project, deps.exec));
  if (!(await hasCommit(project.paths.project, deps.exec))) {
    throw new VxError(`${base} has no commit yet, and a soldier's camp is forked from it - commit something first, then dispatch`);
  }
  const remote = await prepareRemoteProject(deps, root, to, project.paths, base);
  // Before the machine makes the task: should this command die before writing the mirror, the relay adopts it.
  noteDispatch(root, name, deps.clock.now());
  // The relay runs in this machine's sentinel: it must be up before the first wake there.
  ensureSentinel(deps, root);
  ensureProjectRecord(project.paths);
  const commander = await noteCommander(deps, root, project.paths, { warnOtherProject: true });
  const res = await sshOrFail(deps, root, to, inDir(remote.dir, dispatchWords(machine.vx_path, order)), {
    stdin: order.prompt,
    timeoutMs: GUARDS.sshCommand,
  });
  deps.stderr.write(markedLines(name, res.stderr));
  const id = /^task_id=([0-9a-f]{16}) /m.exec(res.stdout)?.[1];
  const status = /^status=(\w+)$/m.exec(res.stdout)?.[1] as Task["status"] | undefined;
  if (id) {
    const now = isoTime(deps.clock.now());
    await saveDispatchedMirror(project.paths, {
      id,
      schema_version: SCHEMA_VERSION,
      kind: order.kind ?? "mission",
      prompt: order.prompt,
      status: status && (STATUSES as readonly string[]).includes(status) ? status : "running",
      created_at: now,
      updated_at: now,
      camp_branch: /camp_branch=(\S+)/.exec(res.stdout)?.[1],
      camp_base: base,
      harness: order.harness,
      model: order.model,
      effort: order.effort,
      ...commander,
      machine: name,
      remote_project: remote.dir,
    });
  }
  deps.stdout.write(`${res.stdout}${id ? `machine=${name}\n` : ""}`);
  return res.code;
}
