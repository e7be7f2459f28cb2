// Every call runs `git -C <dir>` with a timeout, `dir` a worktree's top level, and git kept from searching parents: a camp
// whose worktree is gone can never be taken for an enclosing repository (a reset there would destroy someone else's work).
import { lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import { VxError } from "../errors";
import { EXEC_TIMED_OUT, type Exec, type ExecResult } from "../exec";
import { printable, quotedWord } from "../printable";
import { realpathOr } from "../state/paths";
import { GUARDS } from "../time";

/** Ceiling for read-only queries. */
const GIT_QUERY_TIMEOUT_MS = GUARDS.gitQuery;
/** Ceiling for checkouts, resets and merges, which write a whole tree on large repositories. */
export const GIT_WRITE_TIMEOUT_MS = GUARDS.gitWrite;

/** A git command that exited non-zero (or timed out); the message names the command and dir. */
export class GitError extends VxError {
  readonly argv: string[];
  readonly code: number;
  readonly stderr: string;
  constructor(argv: string[], dir: string, res: ExecResult) {
    const detail = res.code === EXEC_TIMED_OUT ? "timed out" : reasonLine(res.stderr) || lastLine(res.stderr) || lastLine(res.stdout) || `exit ${res.code}`;
    super(`${argv.join(" ")} failed in ${dir}: ${detail}`);
    this.name = "GitError";
    this.argv = argv;
    this.code = res.code;
    this.stderr = res.stderr;
  }
}

function lastLine(text: string): string {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return lines[lines.length - 1] ?? "";
}

const REASON_RE = /^(error|fatal): /;
const LISTED_MAX = 5;

/** Git's first `error:`/`fatal:` line with its indented paths joined on: its last line is often only the outcome (`Aborting`). */
export function reasonLine(stderr: string): string {
  const lines = stderr.split("\n");
  const at = lines.findIndex((l) => REASON_RE.test(l));
  if (at < 0) return "";
  const listed: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (!/^\s/.test(l) || !l.trim()) break;
    listed.push(l.trim());
  }
  const shown = listed.slice(0, LISTED_MAX).join(", ");
  const more = listed.length > LISTED_MAX ? ` and ${listed.length - LISTED_MAX} more` : "";
  return `${lines[at].trim()}${shown ? ` ${shown}${more}` : ""}`;
}

// Variables that point git at a repository other than the one `-C` names; a vx run from inside
// a git hook inherits them and would otherwise act on the hook's repository.
const LOCATION_VARS = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX"];

function gitEnv(dir: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of LOCATION_VARS) delete env[name];
  env.GIT_CEILING_DIRECTORIES = dirname(dir);
  env.GIT_TERMINAL_PROMPT = "0";
  return env;
}

/** Runs `git -C dir ...args`; the raw result, whatever the exit code. */
export function runGit(exec: Exec, dir: string, args: string[], timeoutMs = GIT_QUERY_TIMEOUT_MS): Promise<ExecResult> {
  return exec.run(["git", "-C", dir, ...args], { env: gitEnv(dir), timeoutMs });
}

/** `runGit` with more variables (a push or fetch over vx's ssh: `GIT_SSH_COMMAND`). */
export function runGitWith(exec: Exec, dir: string, args: string[], extra: Record<string, string>, timeoutMs = GIT_WRITE_TIMEOUT_MS): Promise<ExecResult> {
  return exec.run(["git", "-C", dir, ...args], { env: { ...gitEnv(dir), ...extra }, timeoutMs });
}

/** Runs git and returns stdout; any non-zero exit is a GitError. */
async function gitOk(exec: Exec, dir: string, args: string[], timeoutMs?: number): Promise<string> {
  const res = await runGit(exec, dir, args, timeoutMs);
  if (res.code !== 0) throw new GitError(["git", ...args], dir, res);
  return res.stdout;
}

/** Exit 0 → true, 1 → false, anything else → GitError (for git's yes/no commands). */
async function gitYesNo(exec: Exec, dir: string, args: string[]): Promise<boolean> {
  const res = await runGit(exec, dir, args);
  if (res.code === 0) return true;
  if (res.code === 1) return false;
  throw new GitError(["git", ...args], dir, res);
}

/** The checked-out branch's short name; undefined on a detached HEAD. */
export async function currentBranch(dir: string, exec: Exec): Promise<string | undefined> {
  const args = ["symbolic-ref", "--quiet", "--short", "HEAD"];
  const res = await runGit(exec, dir, args);
  if (res.code === 1) return undefined;
  if (res.code !== 0) throw new GitError(["git", ...args], dir, res);
  return res.stdout.trim() || undefined;
}

/** The project checkout's branch; refused when detached or starting with `-` (git reads it as an option: `-f` as `--force`). */
export function campBase(branch: string | undefined): string {
  if (!branch) throw new VxError("the project checkout is on a detached HEAD - check out the branch to dispatch from");
  if (branch.startsWith("-")) {
    throw new VxError(`the project checkout is on branch ${printable(branch)}, a name git takes for an option - rename it (git branch -m -- ${quotedWord(branch)} <new-name>), then dispatch`);
  }
  return branch;
}

/** Porcelain status is empty; `ignoreUntracked` suits a fast-forward (git refuses to overwrite one), not a camp (a soldier's unsaved work). */
export async function isClean(dir: string, exec: Exec, opts: { ignoreUntracked?: boolean } = {}): Promise<boolean> {
  const args = ["status", "--porcelain", ...(opts.ignoreUntracked ? ["--untracked-files=no"] : [])];
  return (await gitOk(exec, dir, args)).trim() === "";
}

/** Commits on HEAD not in `base`; undefined when it cannot be told, so a truthy result is exactly the SEN-14 completion signal. */
export async function commitsAhead(campPath: string | undefined, base: string | undefined, exec: Exec): Promise<number | undefined> {
  if (!campPath || !base) return undefined;
  const res = await runGit(exec, campPath, ["rev-list", "--count", `${base}..HEAD`]);
  if (res.code !== 0) return undefined;
  const n = Number.parseInt(res.stdout.trim(), 10);
  return Number.isNaN(n) ? undefined : n;
}

/** Whether `dir`'s HEAD names a commit (false in a repository with no commit yet). */
export async function hasCommit(dir: string, exec: Exec): Promise<boolean> {
  return (await resolve(exec, dir, "HEAD^{commit}")) !== undefined;
}

/** Commits on `branch` that `base` lacks (`rev-list --count <base>..<branch>` in `dir`); undefined on a git error. */
export async function commitsNotIn(dir: string, branch: string, base: string, exec: Exec): Promise<number | undefined> {
  const res = await runGit(exec, dir, ["rev-list", "--count", `${base}..${branch}`]);
  if (res.code !== 0) return undefined;
  const n = Number.parseInt(res.stdout.trim(), 10);
  return Number.isNaN(n) ? undefined : n;
}

/** `merge-base --is-ancestor a b`: whether commit `a` is reachable from `b`. */
export function isAncestor(dir: string, a: string, b: string, exec: Exec): Promise<boolean> {
  return gitYesNo(exec, dir, ["merge-base", "--is-ancestor", a, b]);
}

async function resolve(exec: Exec, dir: string, rev: string): Promise<string | undefined> {
  const res = await runGit(exec, dir, ["rev-parse", "--verify", "--quiet", rev]);
  return res.code === 0 ? res.stdout.trim() || undefined : undefined;
}

/**
 * CMD-STRIKE-01's landed test: HEAD is an ancestor of `base`, or merging `base` into HEAD gives `base`'s tree (which catches
 * squash and rebase merges). A conflict is false; undefined when it cannot be told.
 */
export async function isLanded(campPath: string, base: string, exec: Exec): Promise<boolean | undefined> {
  const head = await resolve(exec, campPath, "HEAD^{commit}");
  const baseCommit = await resolve(exec, campPath, `${base}^{commit}`);
  const baseTree = await resolve(exec, campPath, `${base}^{tree}`);
  if (!head || !baseCommit || !baseTree) return undefined;
  const anc = await runGit(exec, campPath, ["merge-base", "--is-ancestor", head, baseCommit]);
  if (anc.code === 0) return true;
  if (anc.code !== 1) return undefined;
  const merged = await runGit(exec, campPath, ["merge-tree", "--write-tree", "--no-messages", head, baseCommit]);
  const tree = merged.stdout.split("\n")[0]?.trim() ?? "";
  const isOid = /^[0-9a-f]{40,64}$/.test(tree);
  // Exit 1 is both "conflict" and "bad input"; only a conflict still prints the tree first.
  if (merged.code === 1 && isOid) return false;
  if (merged.code !== 0 || !isOid) return undefined;
  return tree === baseTree;
}

/** Whether `base` can fast-forward to `branch` (base is an ancestor of branch). */
export function isFastForward(projectDir: string, branch: string, base: string, exec: Exec): Promise<boolean> {
  return isAncestor(projectDir, base, branch, exec);
}

/** `git merge --ff-only <branch>` in the project checkout; a GitError when it refuses. */
export async function mergeFastForward(projectDir: string, branch: string, exec: Exec): Promise<void> {
  await gitOk(exec, projectDir, ["merge", "--ff-only", branch], GIT_WRITE_TIMEOUT_MS);
}

type DiscardedCommit = { hash: string; subject: string };
export type DiscardedWork = {
  /** Commits on HEAD not in base, newest first. */
  commits: DiscardedCommit[];
  /** `git status --porcelain` lines, untracked files listed one by one. */
  changes: string[];
};

/** What a reset of the camp would throw away, for `strike --discard` to print. */
export async function discardedWork(campPath: string, base: string, exec: Exec): Promise<DiscardedWork> {
  const log = await gitOk(exec, campPath, ["log", "--format=%H%x1f%s", `${base}..HEAD`]);
  const commits = log
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [hash, ...rest] = line.split("\x1f");
      return { hash, subject: rest.join("\x1f") };
    });
  const status = await gitOk(exec, campPath, ["status", "--porcelain", "--untracked-files=all"]);
  return { commits, changes: status.split("\n").filter((l) => l.trim() !== "") };
}

/** Hard reset, clean (ignored files stay), detach at `base`; the branch, and proving `campPath` a camp (`assertCampOfPool`), are the caller's. */
export async function resetCamp(campPath: string, base: string, exec: Exec): Promise<void> {
  await gitOk(exec, campPath, ["reset", "--hard", "--quiet"], GIT_WRITE_TIMEOUT_MS);
  await gitOk(exec, campPath, ["clean", "-fd", "--quiet"], GIT_WRITE_TIMEOUT_MS);
  await gitOk(exec, campPath, ["checkout", "--quiet", "--detach", base], GIT_WRITE_TIMEOUT_MS);
}

/** Detaches the camp at `base`, then makes `branch` there, recreating it when it exists. */
export async function checkoutFreshBranch(campPath: string, base: string, branch: string, exec: Exec): Promise<void> {
  await gitOk(exec, campPath, ["checkout", "--quiet", "--detach", base], GIT_WRITE_TIMEOUT_MS);
  await gitOk(exec, campPath, ["checkout", "--quiet", "-B", branch], GIT_WRITE_TIMEOUT_MS);
}

export function branchExists(dir: string, branch: string, exec: Exec): Promise<boolean> {
  return gitYesNo(exec, dir, ["show-ref", "--verify", "--quiet", `refs/heads/${branch}`]);
}

/** `git worktree add -B <branch> <path> <base>`: the branch made at `base`, or an existing one of that name reset there. */
export async function addWorktree(projectDir: string, path: string, branch: string, base: string, exec: Exec): Promise<void> {
  await gitOk(exec, projectDir, ["worktree", "add", "--quiet", "-B", branch, "--", path, base], GIT_WRITE_TIMEOUT_MS);
}

/**
 * Where git keeps `top`'s repository, without a git process when `<top>/.git` is a directory (a main checkout: that is its
 * common dir, and git is run with the location variables cleared); git is asked otherwise (a linked worktree's `.git` file).
 */
export async function repositoryDir(top: string, exec: Exec): Promise<string | undefined> {
  const dotGit = join(top, ".git");
  if (lstatSync(dotGit, { throwIfNoEntry: false })?.isDirectory()) return dotGit;
  const res = await runGit(exec, top, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
  return res.code === 0 ? res.stdout.trim() || undefined : undefined;
}

/** The repository's common git dir, absolute (a worktree's shared `.git`); `<top>/.git` when git cannot say. */
export async function gitCommonDir(top: string, exec: Exec): Promise<string> {
  return (await repositoryDir(top, exec)) ?? join(top, ".git");
}

/** To `projectDir`'s repository: `linked` (what a camp is), `main` (the user's checkout), `other` (another repository's) or `none` (no worktree top). */
type WorktreeKind = "linked" | "main" | "other" | "none";

export async function worktreeKind(dir: string, projectDir: string, exec: Exec): Promise<WorktreeKind> {
  const args = ["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"];
  const [mine, theirs] = await Promise.all([runGit(exec, dir, args), runGit(exec, projectDir, args)]);
  if (mine.code !== 0) return "none";
  const [top, gitDir, common] = mine.stdout.trim().split("\n");
  if (top === undefined || top !== realpathOr(dir)) return "none";
  const projectCommon = theirs.code === 0 ? theirs.stdout.trim().split("\n")[2] : undefined;
  if (common === undefined || projectCommon === undefined || common !== projectCommon) return "other";
  // A linked worktree's own git dir is `<common>/worktrees/<name>`; the main one's is the common dir.
  return gitDir === common ? "main" : "linked";
}

type DeleteResult = { deleted: true } | { deleted: false; reason: string };

/** `branch -d` (`-D` with `force`); a refusal is returned with git's reason, not thrown (git also refuses a branch checked out anywhere). */
export async function deleteBranch(projectDir: string, branch: string, opts: { force?: boolean }, exec: Exec): Promise<DeleteResult> {
  if (!(await branchExists(projectDir, branch, exec))) return { deleted: false, reason: `branch ${branch} does not exist` };
  const args = ["branch", opts.force ? "-D" : "-d", branch];
  const res = await runGit(exec, projectDir, args);
  if (res.code === 0) return { deleted: true };
  if (res.code === EXEC_TIMED_OUT) throw new GitError(["git", ...args], projectDir, res);
  const reason = res.stderr
    .split("\n")
    .map((l) => l.replace(/^(error|fatal): /, "").trim())
    .find(Boolean);
  return { deleted: false, reason: reason ?? `git branch exited ${res.code}` };
}

/** `git worktree prune`: forgets worktrees whose directories are gone. */
export async function pruneWorktrees(projectDir: string, exec: Exec): Promise<void> {
  await gitOk(exec, projectDir, ["worktree", "prune"]);
}

/** `runGit` with `input` on git's stdin, for the `--stdin` commands that answer many questions at once. */
export function runGitWithInput(exec: Exec, dir: string, args: string[], input: string): Promise<ExecResult> {
  return exec.run(["git", "-C", dir, ...args], { env: gitEnv(dir), timeoutMs: GIT_QUERY_TIMEOUT_MS, stdin: input });
}
