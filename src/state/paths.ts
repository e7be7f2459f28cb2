/** Where every fact lives (STA-02, STA-03), and the refusal to run from inside a camp (STA-08). */
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { VxError } from "../errors";
import type { Exec } from "../exec";
import { projectKey } from "./key";

export { projectKey };

export type Env = Record<string, string | undefined>;

/** What `stateRoot` reads, to tell another process's state root from its environment. */
export const STATE_ROOT_VARS = ["HOME"] as const;

/** ENV-01. */
export const NO_HOME = "HOME is not set - vx keeps its state in $HOME/.vexillum: set HOME and run it again";

/** ENV-01. */
export function stateRoot(env: Env): string {
  const home = env.HOME;
  if (!home) throw new VxError(NO_HOME);
  return join(home, ".vexillum");
}

/** Where a machine keeps the clones of the projects other machines' commanders send soldiers to (MCH-06), below its HOME. */
export const REMOTES_REL = ".local/share/vexillum/remotes";

export function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function isUnder(path: string, root: string): boolean {
  const p = realpathOr(path);
  const r = realpathOr(root);
  return p === r || p.startsWith(r.endsWith(sep) ? r : r + sep);
}

function campRefusal(dir: string): VxError {
  return new VxError(`running from inside ${dir}, which looks like a vexillum-managed camp, not a project root - cd back to the real project and try again`);
}

/** STA-08. */
export function refuseInsideCamp(cwd: string, root: string): void {
  if (isUnder(cwd, root)) throw campRefusal(realpathOr(cwd));
}

/** Walks up to the nearest `.git` entry: spawning git costs more than the rest of a Stop-hook drain. Git is asked only when GIT_DIR or GIT_WORK_TREE redirect it. */
export async function gitToplevel(cwd: string, exec: Exec, env: Env = {}): Promise<string | undefined> {
  if (env.GIT_DIR || env.GIT_WORK_TREE) {
    const res = await exec.run(["git", "rev-parse", "--show-toplevel"], { cwd, env });
    const top = res.code === 0 ? res.stdout.trim() : "";
    return top ? realpathOr(top) : undefined;
  }
  let dir = realpathOr(resolve(cwd));
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export type ProjectPaths = {
  /** Its git toplevel. */
  project: string;
  key: string;
  /** Nothing below it is read or written through a symbolic link. */
  root: string;
  stateDir: string;
  tasksDir: string;
  tasksLock: string;
  wakesDir: string;
  forumWakesDir: string;
  campsDir: string;
  poolFile: string;
  poolLock: string;
  reportsDir: string;
  pausesDir: string;
  statesDir: string;
  forumInboxDir: string;
  /** The board's conversation with the project's commander (FOR-09) and its lock. */
  boardTalk: string;
  boardTalkLock: string;
  commandersFile: string;
  commandersLock: string;
};

export function projectPaths(root: string, project: string): ProjectPaths {
  const key = projectKey(project);
  return stateDirPaths(join(root, "projects", key), project);
}

/** For a state dir found by listing `projects/`; its root is two levels up. */
export function stateDirPaths(stateDir: string, project = ""): ProjectPaths {
  return {
    project,
    key: basename(stateDir),
    root: dirname(dirname(stateDir)),
    stateDir,
    tasksDir: join(stateDir, "tasks"),
    tasksLock: join(stateDir, "tasks", ".lock"),
    wakesDir: join(stateDir, "wakes"),
    forumWakesDir: join(stateDir, "wakes", "forum"),
    campsDir: join(stateDir, "camps"),
    poolFile: join(stateDir, "camps", "pool.json"),
    poolLock: join(stateDir, "camps", "pool.lock"),
    reportsDir: join(stateDir, "reports"),
    pausesDir: join(stateDir, "pauses"),
    statesDir: join(stateDir, "states"),
    forumInboxDir: join(stateDir, "forum-inbox"),
    boardTalk: join(stateDir, "forum-board.jsonl"),
    boardTalkLock: join(stateDir, ".forum-board.lock"),
    commandersFile: join(stateDir, "commanders.json"),
    commandersLock: join(stateDir, ".commanders.lock"),
  };
}

export function projectStateDirs(root: string): string[] {
  const dir = join(root, "projects");
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

export function rootPaths(root: string) {
  return {
    root,
    projectsDir: join(root, "projects"),
    sentinelPid: join(root, "sentinel.pid"),
    sentinelLock: join(root, "sentinel.lock"),
    sentinelInfo: join(root, "sentinel.json"),
    sentinelLog: join(root, "sentinel.log"),
    awaitersDir: join(root, "sentinel-awaiters"),
    modelsFile: join(root, "models.json"),
  };
}
