/**
 * What a soldier inherits from the command that launched it, on either terminal (issue 15, issue
 * 24): the dispatcher's environment in a 0600 file under the task's hooks dir, read and removed
 * by vx's launcher (`soldier-exec.ts`), which then execs the harness. No value of that environment
 * is ever on a command line. tmux runs the launcher as the pane's program; herdr's `agent start`
 * runs the harness's own name through the pane's shell, so a herdr pane gets a one-line script by
 * that name, first on its PATH, that runs the launcher.
 */
import { chmodSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { shellQuote } from "../harnesses/hook-shell";
import { ensureStateDir, writeStateFile } from "../state/files";
import type { Env, ProjectPaths } from "../state/paths";
import { SOLDIER_ENV_FILE, soldierExecArgv } from "./soldier-exec";

/** Where a soldier's hook files go: under its state dir, never in the camp. */
export function hooksDir(paths: ProjectPaths, taskId: string): string {
  return join(paths.stateDir, "hooks", taskId);
}

/** The env file of a task's launch (read and removed by the launcher). */
export function soldierEnvFile(paths: ProjectPaths, taskId: string): string {
  return join(hooksDir(paths, taskId), SOLDIER_ENV_FILE);
}

// What the dispatcher's environment must not override in the soldier's pane (the launcher lays
// the file over the pane's own environment): tmux sets TMUX and TMUX_PANE for that pane, HERDR_*
// names the dispatcher's herdr pane (the soldier's own pane sets its own), and VX_* is vx's own,
// set for a tmux soldier by `-e`.
const NOT_INHERITED = /^(TMUX|TMUX_PANE|HERDR_.*|VX_.*)$/;

/** What the soldier inherits from the dispatching environment. */
function inheritedEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !NOT_INHERITED.test(k)) out[k] = v;
  return out;
}

/** Writes the launch's env file (0600, no link followed); returns its path. */
export function writeSoldierEnv(paths: ProjectPaths, taskId: string, env: Env): string {
  const file = soldierEnvFile(paths, taskId);
  writeStateFile(paths.root, file, JSON.stringify(inheritedEnv(env)));
  return file;
}

/** The directory a herdr soldier's pane puts first on its PATH: it holds only the launcher script. */
export function launcherDir(paths: ProjectPaths, taskId: string): string {
  return join(hooksDir(paths, taskId), "bin");
}

/**
 * Writes `<launcherDir>/<exe>` (0700): `exec <vx> __soldier-exec <env file> -- <exe> "$@"`. The
 * launcher finds the real `exe` on the dispatcher's PATH (the env file's), which does not hold this
 * directory; run a second time, it finds no env file and stops. herdr names an agent by the first
 * word of its processes' command lines and drops the name `agent start` gave it when, while it
 * starts, none names the harness: so vx runs here through a link named `exe` (one executable;
 * vx run from its source keeps its own name).
 */
export function writeLauncherScript(paths: ProjectPaths, taskId: string, self: readonly string[], exe: string): string {
  const dir = launcherDir(paths, taskId);
  const path = join(dir, exe);
  let vx = self;
  if (self.length === 1) {
    const link = join(dir, ".vx", exe);
    ensureStateDir(paths.root, dirname(link));
    rmSync(link, { force: true });
    symlinkSync(self[0]!, link);
    vx = [link];
  }
  const argv = soldierExecArgv(vx, soldierEnvFile(paths, taskId), [exe]).map(shellQuote).join(" ");
  writeStateFile(paths.root, path, `#!/bin/sh\nexec ${argv} "$@"\n`);
  chmodSync(path, 0o700);
  return path;
}

/** Removes what a launch wrote for its launcher (the env file, a herdr pane's script), whatever became of it. */
export function removeLaunchFiles(paths: ProjectPaths, taskId: string): void {
  rmSync(soldierEnvFile(paths, taskId), { force: true });
  rmSync(launcherDir(paths, taskId), { recursive: true, force: true });
}
