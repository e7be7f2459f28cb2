// The Stop hook's `vx sentinel drain` before the rest of vx loads: it decides only "certainly nothing to deliver",
// else hands over, so its answer is always the full drain's (deliveryProject's checks, in its order).
// It loads no Node module (loading node:fs was half its time above an empty Bun program, node:path a
// sixth): paths are resolved by the kernel (chdir, then getcwd) and directories listed with Bun.Glob.
import { projectKey } from "./state/key";

type Env = Record<string, string | undefined>;

/** The answer is the full drain's to give. */
class Unsure extends Error {}

function errCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/** `realpathSync` of a directory, undefined when it is missing; the cwd moves (`nothingToDeliver` restores it). */
function realDir(path: string): string | undefined {
  try {
    process.chdir(path);
    return process.cwd();
  } catch (err) {
    if (errCode(err) === "ENOENT") return undefined;
    throw new Unsure();
  }
}

/** `existsSync(dir/.git)`: a directory can be entered, a file (a worktree's) is ENOTDIR. */
function hasGit(dir: string): boolean {
  try {
    process.chdir(dir === "/" ? "/.git" : `${dir}/.git`);
    return true;
  } catch (err) {
    if (errCode(err) === "ENOTDIR") return true;
    if (errCode(err) === "ENOENT") return false;
    throw new Unsure();
  }
}

const ALL = new Bun.Glob("*");
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;

function empty(dir: string): boolean {
  try {
    // Only deliverable wakes and claims (`.json`, `.claimed-`) matter; dot-files (journals) are not matched,
    // nor fifos, sockets or devices, which no queue holds.
    for (const n of ALL.scanSync({ cwd: dir, onlyFiles: false })) if (n.endsWith(".json") || n.includes(".claimed-")) return false;
    return true;
  } catch (err) {
    return errCode(err) === "ENOENT";
  }
}

/** deliveryProject (awaiters/queue-context.ts) up to its backend check, then the two queues. */
function nothingHere(home: string, cwd: string): boolean {
  let dir = realDir(cwd);
  if (dir === undefined) throw new Unsure();
  const root = realDir(`${home}/.vexillum`);
  // No state root, no queue (HOME has no `.` or `..` the kernel would resolve otherwise than stateRoot's join).
  if (root === undefined) return true;
  const under = (p: string) => p === root || p.startsWith(`${root}/`);
  if (under(dir)) return true;
  // gitToplevel's walk: it never spawns git when GIT_DIR/GIT_WORK_TREE are unset (checked by the caller).
  while (!hasGit(dir)) {
    if (dir === "/") return true;
    dir = dir.slice(0, dir.lastIndexOf("/")) || "/";
  }
  if (under(dir)) return true;
  // stateDirPaths' wakesDir and forumWakesDir (a unit test holds them equal).
  const stateDir = `${root}/projects/${projectKey(dir)}`;
  return empty(`${stateDir}/wakes`) && empty(`${stateDir}/wakes/forum`);
}

/** Certainly nothing to deliver here (false: the full drain decides). The cwd is as it was on return. */
export function nothingToDeliver(env: Env, cwd: string): boolean {
  const home = env.HOME;
  if (!home || env.TMUX_PANE || env.GIT_DIR || env.GIT_WORK_TREE) return false;
  if (!env.HERDR_WORKSPACE_ID) return true;
  // A relative HOME or cwd, or a `.` or `..` in HOME, the full drain judges.
  if (!home.startsWith("/") || !cwd.startsWith("/") || DOT_SEGMENT.test(home)) return false;
  const here = process.cwd();
  try {
    return nothingHere(home, cwd);
  } catch (err) {
    if (err instanceof Unsure) return false;
    throw err;
  } finally {
    process.chdir(here);
  }
}

/** True when `{}` was printed: nothing could be delivered here. False: run the full drain. */
export async function fastDrain(env: Env, cwd: string): Promise<boolean> {
  if (!nothingToDeliver(env, cwd)) return false;
  // Bun's writer, not process.stdout (a Node stream costs more than the whole drain) or Bun.write (twice the writer).
  const out = Bun.stdout.writer();
  out.write("{}\n");
  await out.flush();
  return true;
}
