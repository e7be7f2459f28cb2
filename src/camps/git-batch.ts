/**
 * Git questions about many camp branches at once, for the landing forecast (TSK-11): each asks
 * git once whatever the number of branches (`for-each-ref`, `rev-parse` over symmetric ranges,
 * the `--stdin` forms of `diff-tree` and `merge-tree`) and reads the answer back by branch. Any
 * failure is `undefined` or `unknown`, never an error: a forecast must not cost `vx status`.
 */
import type { Exec } from "../exec";
import { runGit, runGitWithInput } from "./git";

/**
 * Which of `branches` (short names) have a commit `base` lacks, in one `git for-each-ref
 * --no-merged` call whatever their number; a branch that does not exist is simply not listed.
 * Undefined on a git error (no such base).
 */
export async function branchesNotMerged(dir: string, base: string, branches: string[], exec: Exec): Promise<Set<string> | undefined> {
  if (branches.length === 0) return new Set();
  const refs = branches.map((b) => `refs/heads/${b}`);
  const res = await runGit(exec, dir, ["for-each-ref", "--format=%(refname)", `--no-merged=${base}`, "--", ...refs]);
  if (res.code !== 0) return undefined;
  const out = res.stdout
    .split("\n")
    .filter(Boolean)
    .map((r) => r.replace(/^refs\/heads\//, ""));
  return new Set(out);
}

const OID = /^[0-9a-f]{40,64}$/;

export type Divergence = {
  /** The branch has a commit the base lacks (its tip is not its merge-base with the base). */
  ahead: boolean;
  /** The base is the branch's one merge-base with it: `land` would fast-forward. */
  fastForward: boolean;
  /** What `git diff <base>...<branch>` compares against (the first merge-base); none for unrelated histories. */
  mergeBase: string | undefined;
  tip: string;
};

/**
 * `git rev-parse <base>...refs/heads/<branch>` for every branch in one call: each range prints the
 * branch's tip, the base's tip, then `^<merge-base>` lines. Undefined on a git error (one branch
 * missing fails them all) or output it cannot read, by branch otherwise.
 */
export async function divergence(dir: string, base: string, branches: string[], exec: Exec): Promise<Map<string, Divergence> | undefined> {
  if (branches.length === 0) return new Map();
  const res = await runGit(exec, dir, ["rev-parse", ...branches.map((b) => `${base}...refs/heads/${b}`), "--"]);
  if (res.code !== 0) return undefined;
  // rev-parse echoes the `--` that keeps the ranges from being read as paths.
  const lines = res.stdout.split("\n").filter((l) => l !== "" && l !== "--");
  const out = new Map<string, Divergence>();
  let i = 0;
  for (const branch of branches) {
    const tip = lines[i++] ?? "";
    const baseTip = lines[i++] ?? "";
    if (!OID.test(tip) || !OID.test(baseTip)) return undefined;
    const bases: string[] = [];
    while (lines[i]?.startsWith("^")) bases.push((lines[i++] as string).slice(1));
    out.set(branch, { ahead: !bases.includes(tip), tip, mergeBase: bases[0], fastForward: bases.length === 1 && bases[0] === baseTip });
  }
  return i === lines.length ? out : undefined;
}

/**
 * Files each `tip` changed since its `mergeBase` (what `git diff --name-only <base>...<branch>`
 * lists), all in one `git diff-tree --stdin`, renames split into their two paths so a file moved
 * on one branch still meets its edits on another. `--always` prints every tip as a header, empty
 * diff or not, which is what splits the answer. Undefined on a git error or unreadable output.
 */
export async function changedFiles(dir: string, pairs: { tip: string; mergeBase: string }[], exec: Exec): Promise<string[][] | undefined> {
  if (pairs.length === 0) return [];
  const args = ["diff-tree", "--stdin", "-r", "--name-only", "--no-renames", "--always", "-z"];
  const res = await runGitWithInput(exec, dir, args, pairs.map((p) => `${p.tip} ${p.mergeBase}\n`).join(""));
  if (res.code !== 0) return undefined;
  const tokens = res.stdout.split("\0");
  if (tokens[tokens.length - 1] === "") tokens.pop();
  const out: string[][] = [];
  let i = 0;
  for (const [k, pair] of pairs.entries()) {
    if (tokens[i++] !== pair.tip) return undefined;
    const next = pairs[k + 1]?.tip;
    const files: string[] = [];
    // A path equal to the next header's commit id is as good as impossible; git names files, not hashes.
    while (i < tokens.length && tokens[i] !== next) files.push(tokens[i++] as string);
    out.push(files);
  }
  return i === tokens.length ? out : undefined;
}

export type MergeForecast = { merge: "clean" | "conflict" | "unknown"; conflicts: string[] };

/**
 * Whether merging `branch` into `base` would be clean, in memory (`git merge-tree --write-tree`,
 * git 2.38 or later; it writes only unreferenced objects). An older git rejects the option, and
 * that, like any other failure, is `unknown`, never an error: this is a forecast.
 */
export async function mergeForecast(dir: string, base: string, branch: string, exec: Exec): Promise<MergeForecast> {
  const res = await runGit(exec, dir, ["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", base, branch]);
  const [tree = "", ...files] = res.stdout.split("\0");
  // Exit 1 is both "conflict" and "bad input"; only a merge that ran prints its tree first.
  if (!OID.test(tree)) return { merge: "unknown", conflicts: [] };
  if (res.code === 0) return { merge: "clean", conflicts: [] };
  if (res.code === 1) return { merge: "conflict", conflicts: files.filter(Boolean) };
  return { merge: "unknown", conflicts: [] };
}

/**
 * `mergeForecast` for several branches into `base` in one `git merge-tree --stdin` call, in the
 * order given. Undefined when the batch fails as a whole (a git without `--stdin`, a branch gone
 * meanwhile): the caller then asks branch by branch. Each answer is `<1 clean|0 conflict> NUL
 * <tree> NUL <conflicted path NUL>... NUL`.
 */
export async function mergeForecasts(dir: string, base: string, branches: string[], exec: Exec): Promise<MergeForecast[] | undefined> {
  if (branches.length === 0) return [];
  const args = ["merge-tree", "--stdin", "--write-tree", "--name-only", "--no-messages", "-z"];
  const res = await runGitWithInput(exec, dir, args, branches.map((b) => `${base} ${b}\n`).join(""));
  if (res.code !== 0) return undefined;
  const tokens = res.stdout.split("\0");
  const out: MergeForecast[] = [];
  let i = 0;
  while (out.length < branches.length) {
    const status = tokens[i++];
    const tree = tokens[i++] ?? "";
    if ((status !== "0" && status !== "1") || !OID.test(tree)) return undefined;
    const files: string[] = [];
    while (i < tokens.length && tokens[i] !== "") files.push(tokens[i++] as string);
    if (i >= tokens.length) return undefined;
    i++;
    out.push(status === "1" ? { merge: "clean", conflicts: [] } : { merge: "conflict", conflicts: files });
  }
  return out;
}
