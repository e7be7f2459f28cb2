/**
 * The dispatcher's env, in a 0600 file the launcher (`soldier-exec.ts`) reads and removes, so no value is on a command line.
 * herdr's `agent start` runs the harness by name through the shell, so a herdr pane gets a script by that name first on PATH.
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

export function soldierEnvFile(paths: ProjectPaths, taskId: string): string {
  return join(hooksDir(paths, taskId), SOLDIER_ENV_FILE);
}

// Not laid over the pane's own: tmux sets TMUX*, HERDR_* names the dispatcher's pane, VX_* is vx's own (tmux `-e`).
const NOT_INHERITED = /^(TMUX|TMUX_PANE|HERDR_.*|VX_.*)$/;

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

/** First on a herdr soldier's PATH: only the launcher script. */
export function launcherDir(paths: ProjectPaths, taskId: string): string {
  return join(hooksDir(paths, taskId), "bin");
}

/**
 * `exec <vx> __soldier-exec <env file> -- <exe> "$@"`; run twice, it finds no env file. herdr drops an agent's name when no
 * process of it names the harness while it starts, so a single-file vx runs through a link named `exe`.
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
