// STA-10 step 1: ignored files the checkout's `.worktreeinclude` names (gitignore syntax, Claude Code's convention), copied into a
// camp. Git does the matching; the copy reads through no link out of the checkout and writes through no link in the camp.
import { closeSync, fchmodSync, fstatSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { VxError } from "../errors";
import { EXEC_TIMED_OUT, type Exec } from "../exec";
import { quotedWord as quotedPath } from "../printable";
import { BeneathError, openBeneath } from "../state/beneath";
import { createTemp, kindOf } from "../state/files";
import { isUnder, realpathOr } from "../state/paths";
import { runGit, runGitWithInput } from "./git";

export const INCLUDE_FILE = ".worktreeinclude";
/** What one camp may receive: dependencies are camp_setup's job, so a pattern naming node_modules is refused, not half-copied. */
export const INCLUDE_LIMITS = { files: 1000, bytes: 100 * 1024 * 1024 };

type IncludeResult = { copied: string[]; skipped: { path: string; why: string }[] };

// Through runGit: a caller's GIT_DIR or GIT_INDEX_FILE (vx run from a git hook) must not point these at another repository or index.
async function gitZ(exec: Exec, dir: string, args: string[]): Promise<string[]> {
  const res = await runGit(exec, dir, args);
  if (res.code !== 0) {
    const why = res.code === EXEC_TIMED_OUT ? "timed out" : res.stderr.trim().split("\n").pop() || `exit ${res.code}`;
    throw new VxError(`${args.join(" ")} failed in ${dir}: ${why}`);
  }
  return res.stdout.split("\0").filter(Boolean);
}

/** The patterns of `.worktreeinclude` (comments and blank lines dropped); undefined when there is no file. */
function readIncludePatterns(checkout: string): string[] | undefined {
  const path = join(checkout, INCLUDE_FILE);
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return undefined;
  if (!st.isFile()) throw new VxError(`${path} is not a regular file - make it a text file of gitignore patterns, one a line`);
  const text = readFileSync(path, "utf8");
  if (text.includes("\0") || text.includes("\uFFFD")) throw new VxError(`${path} is not plain text (a NUL byte or invalid UTF-8) - make it a text file of gitignore patterns, one a line`);
  return text.split(/\r?\n/).filter((l) => l.trim() !== "" && !l.startsWith("#"));
}

/** Ignored files `.worktreeinclude` matches; in a wholly ignored directory only a `/` pattern counts (a bare `.env*` must not take a dependency's `.env.example`). */
export async function includedFiles(checkout: string, exec: Exec): Promise<string[]> {
  const patterns = readIncludePatterns(checkout);
  if (!patterns || patterns.length === 0) return [];
  const from = `--exclude-from=${join(checkout, INCLUDE_FILE)}`;
  const matched = await gitZ(exec, checkout, ["ls-files", "-z", "--others", "--ignored", from]);
  if (matched.length === 0) return [];
  const repoIgnored = await checkIgnored(exec, checkout, matched);
  const wholeDirs = (await gitZ(exec, checkout, ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"])).filter((p) => p.endsWith("/"));
  const inWholeDir = (p: string) => wholeDirs.some((d) => p.startsWith(d));
  const deep = repoIgnored.filter(inWholeDir);
  if (deep.length === 0) return repoIgnored;
  const named = new Set<string>();
  const pathy = patterns.filter((l) => l.includes("/")).map((l) => `--exclude=${l}`);
  // In slices: a pattern naming node_modules/ lists more paths than one argv holds.
  for (let i = 0; pathy.length > 0 && i < deep.length; i += 500) {
    const args = ["--literal-pathspecs", "ls-files", "-z", "--others", "--ignored", ...pathy, "--", ...deep.slice(i, i + 500)];
    for (const p of await gitZ(exec, checkout, args)) named.add(p);
  }
  return repoIgnored.filter((p) => !inWholeDir(p) || named.has(p));
}

/** Those of `paths` the repository's own rules ignore (check-ignore exits 1 when there are none). */
async function checkIgnored(exec: Exec, checkout: string, paths: string[]): Promise<string[]> {
  const res = await runGitWithInput(exec, checkout, ["check-ignore", "-z", "--stdin"], `${paths.join("\0")}\0`);
  if (res.code !== 0 && res.code !== 1) throw new VxError(`git check-ignore failed in ${checkout}: ${res.stderr.trim() || `exit ${res.code}`}`);
  return res.stdout.split("\0").filter(Boolean);
}

/** Paths the camp's index tracks, among `paths`. */
async function trackedIn(exec: Exec, camp: string, paths: string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  return new Set(await gitZ(exec, camp, ["--literal-pathspecs", "ls-files", "-z", "--", ...paths]));
}

/** Makes `rel`'s parents in `camp`, each a real directory (never a link); why not when one is something else. */
function campParents(camp: string, rel: string): string | undefined {
  const parts = rel.split("/").slice(0, -1);
  for (const [i, part] of parts.entries()) {
    const dir = join(camp, ...parts.slice(0, i), part);
    const shown = quotedPath(parts.slice(0, i + 1).join("/"));
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st) mkdirSync(dir, { mode: 0o755 });
    else if (st.isSymbolicLink()) return `its directory ${shown} is a link in the camp, not written through`;
    else if (!st.isDirectory()) return `its directory ${shown} is ${kindOf(st)} in the camp, not a directory`;
  }
  return undefined;
}

/** Reads through real directories only (`openBeneath`): a directory swapped for a link after git listed it cannot hand over an outside file. */
function readBeneath(checkout: string, rel: string): { data: Buffer; mode: number } | { why: string } {
  let fd: number;
  try {
    fd = openBeneath(checkout, rel);
  } catch (err) {
    if (!(err instanceof BeneathError)) throw err;
    return { why: `${err.component === rel ? "it" : `its directory ${quotedPath(err.component)}`} ${err.message}` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { why: `${kindOf(st)}, not a regular file` };
    // Counted by lstat before the copy; a file that grew since is not read past the limit.
    if (st.size > INCLUDE_LIMITS.bytes) return { why: `larger than ${INCLUDE_LIMITS.bytes} bytes now` };
    return { data: readFileSync(fd), mode: st.mode & 0o777 };
  } finally {
    closeSync(fd);
  }
}

function writeCopy(dest: string, data: Buffer, mode: number): void {
  // A temp file and a rename: the rename replaces a link at `dest`, never writes through it.
  const { tmp, fd: out } = createTemp(dest, mode);
  try {
    try {
      for (let at = 0; at < data.length; ) at += writeSync(out, data, at);
      fchmodSync(out, mode); // past the umask: the copy keeps the checkout's mode
    } finally {
      closeSync(out);
    }
    renameSync(tmp, dest);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Keeps modes; a link only when relative and inside the checkout; a path the camp tracks is never written; over INCLUDE_LIMITS throws first. */
export async function copyIncluded(checkout: string, camp: string, exec: Exec): Promise<IncludeResult> {
  const files = await includedFiles(checkout, exec);
  if (files.length === 0) return { copied: [], skipped: [] };
  if (files.length > INCLUDE_LIMITS.files) {
    throw new VxError(`${INCLUDE_FILE} names ${files.length} ignored files (more than ${INCLUDE_LIMITS.files}) - name files and small directories, and install dependencies with camp_setup`);
  }
  let bytes = 0;
  for (const rel of files) {
    const st = lstatSync(join(checkout, rel), { throwIfNoEntry: false });
    if (st?.isFile()) bytes += st.size;
  }
  if (bytes > INCLUDE_LIMITS.bytes) {
    throw new VxError(`${INCLUDE_FILE} names ${bytes} bytes of ignored files (more than ${INCLUDE_LIMITS.bytes}) - name files and small directories, and install dependencies with camp_setup`);
  }
  return copyListed(checkout, camp, files, await trackedIn(exec, camp, files));
}

/** The copy of `files` (listed by git, checked against the limits) into `camp`; `tracked`: the camp's. */
export function copyListed(checkout: string, camp: string, files: string[], tracked: Set<string>): IncludeResult {
  const out: IncludeResult = { copied: [], skipped: [] };
  const realCheckout = realpathOr(checkout);
  for (const rel of files) {
    const skip = (why: string) => out.skipped.push({ path: rel, why });
    if (tracked.has(rel)) {
      skip("tracked in the camp, left as it is");
      continue;
    }
    const src = join(checkout, rel);
    const st = lstatSync(src, { throwIfNoEntry: false });
    if (!st) {
      skip("gone from the checkout");
      continue;
    }
    if (!st.isSymbolicLink() && !st.isFile()) {
      skip(`${kindOf(st)}, not a regular file`);
      continue;
    }
    // A link is recreated from its text; a file is read now, before anything is made in the camp.
    const got = st.isSymbolicLink() ? linkInside(src, checkout, realCheckout) : readBeneath(checkout, rel);
    if ("why" in got) {
      skip(got.why);
      continue;
    }
    const problem = campParents(camp, rel);
    if (problem) {
      skip(problem);
      continue;
    }
    const dest = join(camp, rel);
    const at = lstatSync(dest, { throwIfNoEntry: false });
    if (at?.isDirectory()) {
      skip("a directory in the camp");
      continue;
    }
    if ("text" in got) {
      if (at) rmSync(dest);
      symlinkSync(got.text, dest);
    } else {
      writeCopy(dest, got.data, got.mode);
    }
    out.copied.push(rel);
  }
  return out;
}

/** A link's own text when it is relative and resolves inside the checkout; why not otherwise. */
function linkInside(src: string, checkout: string, realCheckout: string): { text: string } | { why: string } {
  const text = readlinkSync(src);
  const shown = quotedPath(text);
  if (text.startsWith("/")) return { why: `a link to the absolute path ${shown}, not followed (only relative links inside the checkout are copied)` };
  let real: string;
  try {
    real = realpathSync(src);
  } catch {
    return { why: `a link to ${shown}, which does not exist (or loops), not followed` };
  }
  // Also inside by its text alone, so the same text in the camp points into the camp.
  const lexical = relative(checkout, resolve(dirname(src), text));
  if (isUnder(real, realCheckout) && lexical !== ".." && !lexical.startsWith("../")) return { text };
  return { why: `a link to ${shown}, which leads out of the checkout, not followed` };
}

/** Ignored `.env*` files outside wholly ignored directories, for `vx init`'s offer of a `.worktreeinclude` (none when it exists). */
export async function ignoredEnvFiles(checkout: string, exec: Exec): Promise<string[]> {
  if (lstatSync(join(checkout, INCLUDE_FILE), { throwIfNoEntry: false })) return [];
  const listed = await gitZ(exec, checkout, ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]);
  return listed.filter((p) => !p.endsWith("/") && /^\.env/.test(p.split("/").pop() ?? "")).sort();
}

/** The `.worktreeinclude` init writes: each of `files` anchored at the checkout's top. */
export function includeFileText(files: string[]): string {
  const head = ["# Copied from this checkout into each soldier's camp before it starts (gitignore syntax).", "# Only files git ignores here are copied, so a tracked file is never overwritten."];
  return `${[...head, ...files.map((f) => `/${f}`)].join("\n")}\n`;
}
