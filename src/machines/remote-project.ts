/**
 * MCH-06: the project's clone on a machine, kept by vx: made once under `~/.local/share/vexillum/remotes/<self_id>/<project key>/`,
 * the base branch pushed over the same ssh connection, the project's `.vexillum/config.json` copied beside it.
 */
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { runGitWith } from "../camps/git";
import type { Deps } from "../deps";
import { VxError } from "../errors";
import { type ProjectPaths, REMOTES_REL } from "../state/paths";
import { GUARDS } from "../time";
import type { Machine } from "../state/schemas";
import { loadMachines } from "./registry";
import { type Reach, gitSshCommand, lastLine, shScript, sshOrFail } from "./ssh";

/** Below the machine's HOME, outside its state root (a checkout there is a camp, STA-08); every state root that uses the machine has its own tree (`self_id`). */
export function remoteProjectRel(selfId: string, paths: ProjectPaths): string {
  return `${REMOTES_REL}/${selfId}/${paths.key}/${basename(paths.project)}`;
}

// A repository a push may update in place (its base checked out), made once; prints where it is.
const PREPARE = `set -e
d="$HOME/$1"
mkdir -p "$d"
cd "$d"
[ -d .git ] || git init -q
git config receive.denyCurrentBranch updateInstead
git symbolic-ref HEAD "refs/heads/$2"
pwd -P`;

// The project's config when the clone does not track one; git never sees it.
const CONFIG = `set -e
cd "$1"
mkdir -p .vexillum
if git ls-files --error-unmatch .vexillum/config.json >/dev/null 2>&1; then cat >/dev/null; exit 0; fi
cat > .vexillum/.config.json.tmp
mv -f .vexillum/.config.json.tmp .vexillum/config.json
grep -qx /.vexillum/config.json .git/info/exclude 2>/dev/null || echo /.vexillum/config.json >> .git/info/exclude`;

/** git's URL for a path on the destination (scp-like, or an ssh:// URL's own form). */
export function gitUrl(destination: string, path: string): string {
  return destination.startsWith("ssh://") ? `${destination.replace(/\/+$/, "")}${path}` : `${destination}:${path}`;
}

export type RemoteProject = { dir: string };

export async function prepareRemoteProject(deps: Pick<Deps, "exec" | "env">, root: string, to: Reach & { machine: Machine }, paths: ProjectPaths, base: string): Promise<RemoteProject> {
  const selfId = loadMachines(root).selfId;
  if (!selfId) throw new VxError(`machines.json has no self_id - add the machine again: vx machine add ${to.name} ${to.destination}`);
  const made = await sshOrFail(deps, root, to, shScript(PREPARE, [remoteProjectRel(selfId, paths), base]), { timeoutMs: GUARDS.gitWrite });
  const dir = made.stdout.trim().split("\n").at(-1) ?? "";
  if (made.code !== 0 || !dir.startsWith("/")) throw new VxError(`machine ${to.name}: could not make the project's clone there: ${lastLine(made.stderr)}`);
  // `git receive-pack` needs only git on the machine's PATH, not its helper programs.
  const sshCommand = gitSshCommand(root, to.destination);
  const refspec = `refs/heads/${base}:refs/heads/${base}`;
  const push = await runGitWith(deps.exec, paths.project, ["push", "-q", "--force", "--receive-pack=git receive-pack", gitUrl(to.destination, dir), refspec], { GIT_SSH_COMMAND: sshCommand });
  if (push.code !== 0) throw new VxError(`machine ${to.name}: could not push ${base} to the project's clone there: ${lastLine(push.stderr)}`);
  const config = await sshOrFail(deps, root, to, shScript(CONFIG, [dir]), { stdin: readFileSync(join(paths.project, ".vexillum", "config.json"), "utf8") });
  if (config.code !== 0) throw new VxError(`machine ${to.name}: could not copy .vexillum/config.json there: ${lastLine(config.stderr)}`);
  return { dir };
}
