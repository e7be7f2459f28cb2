import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { GitError, commitsAhead, currentBranch, deleteBranch, discardedWork, isAncestor } from "../../src/camps/git";
import { isClean, isFastForward, isLanded, mergeFastForward, pruneWorktrees, repositoryDir, resetCamp } from "../../src/camps/git";
import { acquireCamp, checkCamp, leaseOf, leasedTasks, readPool, releaseLease } from "../../src/camps/pool";
import { StateError, VxError } from "../../src/errors";
import { realExec } from "../../src/exec";
import { type ProjectPaths, projectPaths } from "../../src/state/paths";
import { type Sandbox, git, sandbox } from "../helpers";

const exec = realExec;
const A = "aaaaaaaaaaaaaaaa";
const B = "bbbbbbbbbbbbbbbb";
const C = "cccccccccccccccc";

function pathsOf(sb: Sandbox): ProjectPaths {
  return projectPaths(join(sb.home, ".vexillum"), sb.project);
}

function acquire(sb: Sandbox, taskId: string, base = "main") {
  return acquireCamp(pathsOf(sb), { project: sb.project, taskId, base, exec });
}

function commit(dir: string, file: string, text: string, msg: string): string {
  mkdirSync(join(dir, file, ".."), { recursive: true });
  writeFileSync(join(dir, file), text);
  git(dir, "add", file);
  git(dir, "commit", "-q", "-m", msg);
  return git(dir, "rev-parse", "HEAD");
}

function poolJson(paths: ProjectPaths): unknown {
  return JSON.parse(readFileSync(paths.poolFile, "utf8"));
}

/** A worktree outside the pool on `vexillum/x` from main, for the git helpers. */
function worktree(sb: Sandbox, branch = "vexillum/x"): string {
  const dir = join(sb.home, "camp", basename(sb.project));
  git(sb.project, "worktree", "add", "-q", "-b", branch, dir, "main");
  return dir;
}

describe("camp pool", () => {
  test("acquire makes a worktree on vexillum/<id> from base at camps/<slot>/<repo>", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const camp = await acquire(sb, A);
    expect(camp).toEqual({
      slot: 1,
      path: join(paths.campsDir, "1", basename(sb.project)),
      branch: `vexillum/${A}`,
      skipped: [],
    });
    expect(git(camp.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe(`vexillum/${A}`);
    expect(git(camp.path, "rev-parse", "HEAD")).toBe(git(sb.project, "rev-parse", "main"));
    expect(statSync(join(paths.campsDir, "1")).mode & 0o777).toBe(0o700);
    expect(poolJson(paths)).toEqual({ schema_version: 1, slots: [{ number: 1, branch: `vexillum/${A}`, leased_by: A }] });
    expect(leasedTasks(paths)).toEqual(new Set([A]));
    expect(leaseOf(paths, A)?.number).toBe(1);
    expect(leaseOf(paths, B)).toBeUndefined();
  });

  test("release keeps the worktree; the next acquire reuses it on a fresh branch from base", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const first = await acquire(sb, A);
    const work = commit(first.path, "a.txt", "a\n", "work of A");
    expect(await releaseLease(paths, A)).toBe(true);
    expect(await releaseLease(paths, A)).toBe(false);
    expect(poolJson(paths)).toEqual({ schema_version: 1, slots: [{ number: 1, branch: `vexillum/${A}` }] });
    expect(leasedTasks(paths).size).toBe(0);
    expect(existsSync(first.path)).toBe(true);

    const second = await acquire(sb, B);
    expect(second.slot).toBe(1);
    expect(second.path).toBe(first.path);
    expect(git(second.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe(`vexillum/${B}`);
    expect(git(second.path, "rev-parse", "HEAD")).toBe(git(sb.project, "rev-parse", "main"));
    expect(await isClean(second.path, exec)).toBe(true);
    expect(git(sb.project, "rev-parse", `vexillum/${A}`)).toBe(work);
  });

  test("an existing branch of the same id is recreated at base, on reuse and on add", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const main = git(sb.project, "rev-parse", "main");
    const first = await acquire(sb, A);
    commit(first.path, "a.txt", "a\n", "old run");
    await releaseLease(paths, A);
    const again = await acquire(sb, A);
    expect(again.slot).toBe(1);
    expect(git(sb.project, "rev-parse", `vexillum/${A}`)).toBe(main);

    commit(again.path, "a.txt", "a\n", "old run");
    await releaseLease(paths, A);
    await acquire(sb, B); // takes slot 1, moving it off vexillum/A
    const added = await acquire(sb, A);
    expect(added.slot).toBe(2);
    expect(git(sb.project, "rev-parse", `vexillum/${A}`)).toBe(main);
    expect(git(added.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe(`vexillum/${A}`);
  });

  test("a dirty idle worktree is skipped for a new slot", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const first = await acquire(sb, A);
    writeFileSync(join(first.path, "scratch.txt"), "wip\n");
    await releaseLease(paths, A);
    const second = await acquire(sb, B);
    expect(second.slot).toBe(2);
    expect(second.skipped).toEqual([{ slot: 1, reason: "has uncommitted changes" }]);
    expect(readFileSync(join(first.path, "scratch.txt"), "utf8")).toBe("wip\n");
    expect(readPool(paths).slots.map((s) => [s.number, s.leased_by])).toEqual([
      [1, undefined],
      [2, B],
    ]);
  });

  test("missing and broken worktrees are skipped", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const one = await acquire(sb, A);
    const two = await acquire(sb, B);
    await releaseLease(paths, A);
    await releaseLease(paths, B);
    rmSync(one.path, { recursive: true, force: true });
    rmSync(two.path, { recursive: true, force: true });
    mkdirSync(two.path); // a plain directory where the worktree was
    const third = await acquire(sb, C);
    expect(third.slot).toBe(3);
    expect(third.skipped).toEqual([
      { slot: 1, reason: "worktree is missing" },
      { slot: 2, reason: "not a worktree of this project" },
    ]);
    expect(git(third.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe(`vexillum/${C}`);
  });

  test("an idle slot whose path is a symlink to the project checkout is skipped; the checkout is untouched", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const one = await acquire(sb, A);
    await releaseLease(paths, A);
    renameSync(one.path, `${one.path}.moved`);
    symlinkSync(sb.project, one.path);
    const two = await acquire(sb, B);
    expect(two.slot).toBe(2);
    expect(two.skipped).toEqual([{ slot: 1, reason: "its path has a symbolic link, which vx refuses inside its state dir" }]);
    expect(git(sb.project, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
  });

  test("checkCamp: a camp, a gone one, and every foreign path", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const one = await acquire(sb, A);
    const two = await acquire(sb, B);
    const check = (slot: number, path: string, taskId = A) => checkCamp(paths, { slot, path, taskId }, exec);
    expect(await check(1, one.path)).toEqual({ kind: "camp" });
    expect(await check(1, sb.project)).toEqual({ kind: "foreign", reason: `it is outside this project's camps directory ${paths.campsDir}` });
    expect(await check(1, two.path)).toEqual({ kind: "foreign", reason: `it is not camp slot 1's path ${one.path}` });
    expect(await check(2, two.path)).toEqual({ kind: "foreign", reason: `camp slot 2 is leased by task ${B}` });
    expect(await check(2, two.path, B)).toEqual({ kind: "camp" });
    const three = join(paths.campsDir, "3", basename(sb.project));
    mkdirSync(three, { recursive: true });
    expect(await check(3, three)).toEqual({ kind: "foreign", reason: `camp slot 3 is not listed in ${paths.poolFile}` });
    expect(await check(1, join(one.path, "missing"))).toEqual({ kind: "gone", reason: "worktree is missing" });
    rmSync(one.path, { recursive: true, force: true });
    expect(await check(1, one.path)).toEqual({ kind: "gone", reason: "worktree is missing" });
    mkdirSync(one.path);
    expect(await check(1, one.path)).toEqual({ kind: "gone", reason: "not a worktree of this project" });
  });

  test("a lost pool file and leftover directories do not wedge acquire", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const one = await acquire(sb, A);
    rmSync(one.path, { recursive: true, force: true }); // still registered with git
    rmSync(paths.poolFile);
    mkdirSync(join(paths.campsDir, "2", basename(sb.project), "junk"), { recursive: true });
    const camp = await acquire(sb, B);
    expect(camp.slot).toBe(1);
    expect(git(camp.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe(`vexillum/${B}`);
    expect((await acquire(sb, C)).slot).toBe(3);
  });

  test("a worktree pool.json never recorded (killed between add and save) is adopted and reused, not stepped over", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const one = await acquire(sb, A);
    writeFileSync(paths.poolFile, JSON.stringify({ schema_version: 1, slots: [] }));
    const camp = await acquire(sb, B);
    expect(camp).toMatchObject({ slot: 1, path: one.path });
    expect(git(camp.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe(`vexillum/${B}`);
    expect(readPool(paths).slots).toEqual([{ number: 1, branch: `vexillum/${B}`, leased_by: B }]);
  });

  test("a lease the caller calls abandoned is cleared and its slot reused; others are kept", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    await acquire(sb, A);
    await acquire(sb, B);
    await releaseLease(paths, B);
    const camp = await acquireCamp(paths, { project: sb.project, taskId: C, base: "main", exec, abandoned: (id) => id === A });
    expect(camp.slot).toBe(1);
    expect(leasedTasks(paths)).toEqual(new Set([C]));
    expect((await acquire(sb, B)).slot).toBe(2);
  });

  test("8 concurrent acquires from 8 processes get 8 distinct slots and 8 leases", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const script = join(import.meta.dir, "..", "fixtures", "acquire-camp.ts");
    const ids = Array.from({ length: 8 }, (_, i) => `${i}`.repeat(16));
    const procs = ids.map((id) => Bun.spawn(["bun", script, paths.stateDir, sb.project, id, "main"], { stdout: "pipe", stderr: "pipe" }));
    const outs = await Promise.all(procs.map((p) => new Response(p.stdout).text()));
    const errs = await Promise.all(procs.map((p) => new Response(p.stderr).text()));
    const codes = await Promise.all(procs.map((p) => p.exited));
    expect({ codes, errs }).toEqual({ codes: Array(8).fill(0), errs: Array(8).fill("") });
    const slots = outs.map((o) => JSON.parse(o).slot as number);
    expect(new Set(slots).size).toBe(8);
    expect([...slots].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const pool = readPool(paths);
    expect(pool.slots).toHaveLength(8);
    expect(new Set(pool.slots.map((s) => s.leased_by))).toEqual(new Set(ids));
    expect(leasedTasks(paths)).toEqual(new Set(ids));
  });

  test("unknown fields survive every save, top-level and per slot", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const one = await acquire(sb, A);
    const onDisk = {
      schema_version: 1,
      slots: [{ number: 1, branch: one.branch, leased_by: A, zeta: [1, 2] }],
      future: { x: 1 },
      alpha: "kept",
    };
    writeFileSync(paths.poolFile, JSON.stringify(onDisk));
    await acquire(sb, B);
    await releaseLease(paths, A);
    const after = poolJson(paths) as Record<string, unknown>;
    expect(Object.keys(after)).toEqual(["schema_version", "slots", "alpha", "future"]);
    expect(after.future).toEqual({ x: 1 });
    expect(after.slots).toEqual([
      { number: 1, branch: one.branch, zeta: [1, 2] },
      { number: 2, branch: `vexillum/${B}`, leased_by: B },
    ]);
  });

  test("a corrupt pool.json is a StateError naming it and is never touched", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    mkdirSync(paths.campsDir, { recursive: true });
    writeFileSync(paths.poolFile, "{not json");
    expect(() => readPool(paths)).toThrow(StateError);
    expect(() => readPool(paths)).toThrow(paths.poolFile);
    expect(() => leasedTasks(paths)).toThrow(StateError);
    await expect(acquire(sb, A)).rejects.toThrow(paths.poolFile);
    await expect(releaseLease(paths, A)).rejects.toBeInstanceOf(StateError);
    expect(readFileSync(paths.poolFile, "utf8")).toBe("{not json");
    expect(existsSync(join(paths.campsDir, "1"))).toBe(false);

    writeFileSync(paths.poolFile, JSON.stringify({ schema_version: 2, slots: [] }));
    expect(() => readPool(paths)).toThrow(`${paths.poolFile}: unsupported schema version 2 (expected 1)`);
  });

  test("a missing pool is empty; a task holding a lease cannot acquire another", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    expect(readPool(paths)).toEqual({ schema_version: 1, slots: [] });
    expect(await releaseLease(paths, A)).toBe(false);
    await acquire(sb, A);
    const err = await acquire(sb, A).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VxError);
    expect((err as Error).message).toBe(`task ${A} already holds camp slot 1`);
  });

  test("a failed git step leases nothing and says what failed", async () => {
    using sb = sandbox();
    const paths = pathsOf(sb);
    const err = await acquire(sb, A, "no-such-base").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VxError);
    expect((err as Error).message).toStartWith(`could not create camp slot 1 for task ${A}: git worktree add`);
    expect((err as Error).message).toContain("no-such-base");
    expect(readPool(paths).slots).toEqual([]);
    expect(existsSync(join(paths.campsDir, "1"))).toBe(false);
    expect((await acquire(sb, A)).slot).toBe(1);
  });
});

describe("git helpers", () => {
  test("currentBranch and isClean", async () => {
    using sb = sandbox();
    expect(await currentBranch(sb.project, exec)).toBe("main");
    expect(await isClean(sb.project, exec)).toBe(true);
    writeFileSync(join(sb.project, "new.txt"), "x\n");
    expect(await isClean(sb.project, exec)).toBe(false);
    git(sb.project, "checkout", "-q", "--detach", "main");
    expect(await currentBranch(sb.project, exec)).toBeUndefined();
    await expect(currentBranch(join(sb.home, "nowhere"), exec)).rejects.toBeInstanceOf(GitError);
  });

  test("commitsAhead counts commits not in base; undefined means no signal", async () => {
    using sb = sandbox();
    const camp = worktree(sb);
    expect(await commitsAhead(camp, "main", exec)).toBe(0);
    commit(camp, "a.txt", "a\n", "one");
    commit(camp, "b.txt", "b\n", "two");
    expect(await commitsAhead(camp, "main", exec)).toBe(2);
    expect(await commitsAhead(undefined, "main", exec)).toBeUndefined();
    expect(await commitsAhead(camp, undefined, exec)).toBeUndefined();
    expect(await commitsAhead(camp, "no-such-base", exec)).toBeUndefined();
    expect(await commitsAhead(join(sb.home, "gone"), "main", exec)).toBeUndefined();
  });

  test("isLanded: fast-forward merge, and a camp with nothing new", async () => {
    using sb = sandbox();
    const camp = worktree(sb);
    expect(await isLanded(camp, "main", exec)).toBe(true);
    commit(camp, "a.txt", "a\n", "one");
    expect(await isLanded(camp, "main", exec)).toBe(false);
    git(sb.project, "merge", "-q", "--ff-only", "vexillum/x");
    expect(await isLanded(camp, "main", exec)).toBe(true);
  });

  test("isLanded: squash merge, including after base moved on; not once the camp adds more", async () => {
    using sb = sandbox();
    const camp = worktree(sb);
    commit(camp, "a.txt", "a\n", "one");
    commit(camp, "b.txt", "b\n", "two");
    commit(sb.project, "other.txt", "o\n", "unrelated");
    git(sb.project, "merge", "-q", "--squash", "vexillum/x");
    git(sb.project, "commit", "-q", "-m", "squashed");
    commit(sb.project, "later.txt", "l\n", "later on main");
    expect(await isLanded(camp, "main", exec)).toBe(true);
    commit(camp, "c.txt", "c\n", "three, not landed");
    expect(await isLanded(camp, "main", exec)).toBe(false);
  });

  test("isLanded: rebase merge (commits replayed with new hashes)", async () => {
    using sb = sandbox();
    const camp = worktree(sb);
    const c1 = commit(camp, "a.txt", "a\n", "one");
    const c2 = commit(camp, "b.txt", "b\n", "two");
    commit(sb.project, "other.txt", "o\n", "unrelated");
    git(sb.project, "cherry-pick", c1, c2);
    expect(await isAncestor(sb.project, c2, "main", exec)).toBe(false);
    expect(await isLanded(camp, "main", exec)).toBe(true);
  });

  test("isLanded: false when unmerged or conflicting, undefined when it cannot tell", async () => {
    using sb = sandbox();
    const camp = worktree(sb);
    commit(camp, "README.md", "# camp\n", "camp edit");
    expect(await isLanded(camp, "main", exec)).toBe(false);
    commit(sb.project, "README.md", "# main\n", "main edit");
    expect(await isLanded(camp, "main", exec)).toBe(false);
    expect(await isLanded(camp, "no-such-base", exec)).toBeUndefined();
    expect(await isLanded(join(sb.home, "gone"), "main", exec)).toBeUndefined();
  });

  test("isFastForward and mergeFastForward", async () => {
    using sb = sandbox();
    const camp = worktree(sb);
    const tip = commit(camp, "a.txt", "a\n", "one");
    expect(await isFastForward(sb.project, "vexillum/x", "main", exec)).toBe(true);
    await mergeFastForward(sb.project, "vexillum/x", exec);
    expect(git(sb.project, "rev-parse", "main")).toBe(tip);

    commit(camp, "b.txt", "b\n", "two");
    commit(sb.project, "other.txt", "o\n", "main moved");
    expect(await isFastForward(sb.project, "vexillum/x", "main", exec)).toBe(false);
    await expect(mergeFastForward(sb.project, "vexillum/x", exec)).rejects.toBeInstanceOf(GitError);
  });

  test("discardedWork lists commits newest first and every uncommitted change", async () => {
    using sb = sandbox();
    const camp = worktree(sb);
    const c1 = commit(camp, "a.txt", "a\n", "first change");
    const c2 = commit(camp, "b.txt", "b\n", "second\tchange");
    writeFileSync(join(camp, "README.md"), "# edited\n");
    mkdirSync(join(camp, "dir"));
    writeFileSync(join(camp, "dir", "new.txt"), "n\n");
    expect(await discardedWork(camp, "main", exec)).toEqual({
      commits: [
        { hash: c2, subject: "second\tchange" },
        { hash: c1, subject: "first change" },
      ],
      changes: [" M README.md", "?? dir/new.txt"],
    });
  });

  test("resetCamp discards everything and detaches at base; the branch is kept", async () => {
    using sb = sandbox();
    const camp = worktree(sb);
    const tip = commit(camp, "a.txt", "a\n", "one");
    writeFileSync(join(camp, "README.md"), "# edited\n");
    writeFileSync(join(camp, "untracked.txt"), "u\n");
    await resetCamp(camp, "main", exec);
    expect(await isClean(camp, exec)).toBe(true);
    expect(await currentBranch(camp, exec)).toBeUndefined();
    expect(git(camp, "rev-parse", "HEAD")).toBe(git(sb.project, "rev-parse", "main"));
    expect(git(sb.project, "rev-parse", "vexillum/x")).toBe(tip);
  });

  test("git never acts on an enclosing repository when the worktree is gone", async () => {
    using sb = sandbox();
    const plain = join(sb.project, "not-a-camp");
    mkdirSync(plain);
    writeFileSync(join(sb.project, "README.md"), "# uncommitted\n");
    await expect(resetCamp(plain, "main", exec)).rejects.toBeInstanceOf(GitError);
    expect(readFileSync(join(sb.project, "README.md"), "utf8")).toBe("# uncommitted\n");
    expect(await commitsAhead(plain, "main", exec)).toBeUndefined();
  });

  test("deleteBranch: safe -d semantics unless forced", async () => {
    using sb = sandbox();
    git(sb.project, "branch", "merged");
    git(sb.project, "checkout", "-q", "-b", "feature");
    commit(sb.project, "f.txt", "f\n", "feature work");
    git(sb.project, "checkout", "-q", "main");

    expect(await deleteBranch(sb.project, "merged", {}, exec)).toEqual({ deleted: true });
    const refused = await deleteBranch(sb.project, "feature", {}, exec);
    expect(refused.deleted).toBe(false);
    expect(!refused.deleted && refused.reason).toContain("not fully merged");
    expect(git(sb.project, "branch", "--list", "feature")).not.toBe("");
    expect(await deleteBranch(sb.project, "feature", { force: true }, exec)).toEqual({ deleted: true });
    expect(await deleteBranch(sb.project, "feature", {}, exec)).toEqual({ deleted: false, reason: "branch feature does not exist" });

    worktree(sb, "checked-out");
    const busy = await deleteBranch(sb.project, "checked-out", { force: true }, exec);
    expect(busy.deleted).toBe(false);
    expect(!busy.deleted && busy.reason).toContain("checked out");
  });

  test("repositoryDir: a main checkout's .git with no git process; a linked worktree's from git, as git says", async () => {
    using sb = sandbox();
    const calls: string[][] = [];
    const counting: typeof exec = { ...exec, run: (argv, opts) => (calls.push(argv), exec.run(argv, opts)) };
    expect(await repositoryDir(sb.project, counting)).toBe(join(sb.project, ".git"));
    expect(calls).toEqual([]);
    const camp = worktree(sb);
    const common = git(camp, "rev-parse", "--path-format=absolute", "--git-common-dir");
    expect(await repositoryDir(camp, counting)).toBe(common);
    expect(calls).toHaveLength(1);
    expect(await repositoryDir(join(sb.project, "no-such-dir"), counting)).toBeUndefined();
  });

  test("pruneWorktrees forgets worktrees whose directory is gone", async () => {
    using sb = sandbox();
    const camp = worktree(sb);
    rmSync(camp, { recursive: true, force: true });
    expect(git(sb.project, "worktree", "list")).toContain(camp);
    await pruneWorktrees(sb.project, exec);
    expect(git(sb.project, "worktree", "list")).not.toContain(camp);
  });
});
