// Git questions about many camp branches for the landing forecast (TSK-11), each one git call whatever the number of branches.
// Any failure is `undefined` or `unknown`, never an error: a forecast must not cost `vx status`.
import type { Exec } from "../exec";
import { runGit, runGitWithInput } from "./git";

/** Which `branches` have a commit `base` lacks (a missing branch is not listed); undefined on a git error. */
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
  ahead: boolean;
  /** The base is the branch's one merge-base with it: `land` would fast-forward. */
  fastForward: boolean;
  /** What `git diff <base>...<branch>` compares against (the first merge-base); none for unrelated histories. */
  mergeBase: string | undefined;
  tip: string;
};

/** Each range prints the branch's tip, the base's tip, then `^<merge-base>` lines; one branch missing fails them all (undefined). */
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
 * Files each tip changed since its merge-base, in one `diff-tree --stdin`. Renames are split so a moved file still meets its
 * edits on another branch; `--always` prints every tip as a header, which splits the answer.
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

/** Merges `branch` into `base` in memory (`merge-tree --write-tree`, git 2.38+); an older git, like any failure, is `unknown`. */
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
 * `mergeForecast` for many branches in one `merge-tree --stdin`; undefined when the batch fails (old git, a branch gone), so
 * the caller asks one by one. Each answer: `<1 clean|0 conflict> NUL <tree> NUL <conflicted path NUL>... NUL`.
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
