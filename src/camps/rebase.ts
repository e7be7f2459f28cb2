// A camp's own rebase for `vx land` (CMD-LAND-04): run in the camp worktree, where the branch is checked out, so git keeps the
// branch, index and files in step; a conflict is aborted at once, leaving the camp and the branch exactly as they were.
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Exec } from "../exec";
import { GIT_WRITE_TIMEOUT_MS, GitError, runGit, runGitWith } from "./git";

/** The commit `rev` names in `dir`; undefined when it names none. */
export async function commitOf(dir: string, rev: string, exec: Exec): Promise<string | undefined> {
  const res = await runGit(exec, dir, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`]);
  return res.code === 0 ? res.stdout.trim() || undefined : undefined;
}

/** Whether a rebase is stopped or was cut short in the worktree `dir` (git's own state directories). */
export async function rebaseInProgress(dir: string, exec: Exec): Promise<boolean> {
  for (const name of ["rebase-merge", "rebase-apply"]) {
    const res = await runGit(exec, dir, ["rev-parse", "--git-path", name]);
    if (res.code !== 0) throw new GitError(["git", "rev-parse", "--git-path", name], dir, res);
    const path = res.stdout.trim();
    if (existsSync(isAbsolute(path) ? path : join(dir, path))) return true;
  }
  return false;
}

/** `git rebase --abort` in `dir`; a GitError when git cannot (a stale lock file a killed git left). */
export async function abortRebase(dir: string, exec: Exec): Promise<void> {
  const res = await runGit(exec, dir, ["rebase", "--abort"], GIT_WRITE_TIMEOUT_MS);
  if (res.code !== 0) throw new GitError(["git", "rebase", "--abort"], dir, res);
}

export type RebaseOutcome = { ok: true } | { ok: false; conflicts: string[]; reason: string };

/**
 * Rebases the branch checked out in `camp` onto commit `onto`. On any failure the rebase is aborted before returning, so the
 * outcome names the conflicted files (or git's reason) and the camp is as it was. No editor, no autostash: the camp is clean.
 */
export async function rebaseCamp(camp: string, onto: string, exec: Exec): Promise<RebaseOutcome> {
  const args = ["-c", "rebase.autoStash=false", "-c", "rebase.updateRefs=false", "rebase", "--quiet", "--no-autostash", onto];
  const res = await runGitWith(exec, camp, args, { GIT_EDITOR: "true", GIT_SEQUENCE_EDITOR: "true" }, GIT_WRITE_TIMEOUT_MS);
  if (res.code === 0) return { ok: true };
  const unmerged = await runGit(exec, camp, ["diff", "--name-only", "--diff-filter=U"]);
  const conflicts = unmerged.code === 0 ? unmerged.stdout.split("\n").filter(Boolean) : [];
  const reason = new GitError(["git", "rebase", onto], camp, res).message;
  if (await rebaseInProgress(camp, exec)) await abortRebase(camp, exec);
  return { ok: false, conflicts, reason };
}
