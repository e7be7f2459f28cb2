/**
 * The checks a launch makes before anything is written, shared by dispatch, redispatch and resume:
 * the backend can take a soldier from here (CMD-DISPATCH-02), the harness would not die in its
 * pane, and no sandbox would break the launch half-way (issue 15 item 8).
 */
import { BACKENDS } from "../backends";
import { repositoryDir } from "../camps/git";
import type { Deps } from "../deps";
import { VxError } from "../errors";
import { which } from "../exec";
import { type HarnessName, harnessOf } from "../harnesses";
import type { Project } from "../project";
import { canCreateIn, foreignPidNamespace, sandboxRefusal } from "../sandbox";
import { sentinelState } from "../sentinel/singleton";
import { rootPaths } from "../state/paths";
import type { Task } from "../state/schemas";

type Backend = NonNullable<Task["backend"]>;

/** CMD-DISPATCH-02 for the backend: throws when it cannot take a soldier from here; the herdr workspace when it is herdr. */
export function checkBackend(deps: Deps, backend: Backend): string | undefined {
  return BACKENDS[backend].check(deps.env);
}

/**
 * A harness that is not installed, would die in its pane, or cannot run on `backend`, said so here,
 * before a task, a camp, a sentinel or a pane exists. Its program is looked up on the caller's PATH:
 * the launcher runs it with the dispatcher's environment on either terminal (HRD-08). `instead` is
 * the other way the command offers (a redispatch takes a profile, not a --harness).
 */
export function checkLaunchRefusal(deps: Deps, harness: HarnessName, backend: Backend, instead = "dispatch with another --harness"): void {
  const h = harnessOf(harness);
  const [exe] = h.program(deps.self);
  // vx itself (the demo soldier) is found by the path it runs from.
  if (exe && !exe.includes("/") && !which(exe, deps.env.PATH)) {
    throw new VxError(`${exe} not found in PATH, needed to run ${h.label} soldiers - install ${h.label} (or put ${exe} on PATH), or ${instead}`);
  }
  const refusal = h.launchRefusal(deps.env, backend);
  if (refusal) throw new VxError(refusal);
}

/**
 * Issue 15 item 8: inside a sandbox such as Codex's default one, dispatch fails half-way (git
 * cannot write the camp's branch under a read-only `.git`, herdr and tmux are out of reach with the
 * network off) and a sentinel it starts dies with the command. Said in one line before anything is
 * written: what is read-only, the network, or that no sentinel runs and one started here would not
 * outlive this command.
 */
export async function checkSandbox(deps: Deps, project: Project, what = "dispatch"): Promise<void> {
  const gitDir = await repositoryDir(project.paths.project, deps.exec);
  const reasons: string[] = [];
  if (gitDir && canCreateIn(gitDir) === false) reasons.push(`${gitDir} is read-only here`);
  // The project's state dir is named only when the root above it is writable.
  const stateDir = [project.root, project.paths.stateDir].find((dir) => canCreateIn(dir) === false);
  if (stateDir) reasons.push(`${stateDir} is read-only here`);
  // Codex sets this whenever its sandbox has the network off, AF_UNIX sockets included.
  if (deps.env.CODEX_SANDBOX_NETWORK_DISABLED === "1") reasons.push("its network is off, so herdr and tmux cannot be reached");
  const namespace = foreignPidNamespace();
  if (namespace && !sentinelState(rootPaths(project.root)).running) reasons.push(`a sentinel started here would die with this command: ${namespace}`);
  if (reasons.length === 0) return;
  const writable = gitDir ? [gitDir, project.root] : undefined;
  throw new VxError(sandboxRefusal(what, reasons.join("; "), deps.env, { inNamespace: namespace !== undefined, writable }));
}
