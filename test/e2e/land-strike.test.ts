// `vx land` and `vx strike` end to end (CMD-LAND-01/02, CMD-STRIKE-01..03, T12, T13, WAK-13)
// against real git worktrees and the fake herdr.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireCamp, leaseOf } from "../../src/camps/pool";
import { realExec } from "../../src/exec";
import { type ProjectPaths, projectPaths } from "../../src/state/paths";
import { type FakeHerdrEnv, addAgent, callsOf, closeTab as closeFakeTab, createTab, createWorkspace, installFakeHerdr } from "../fakes/herdr-control";
import { type Sandbox, git, sandbox, vx, writeExecutable } from "../helpers";
import { initProject } from "../init-project";

const ID = "0123456789abcdef";
const BRANCH = `vexillum/${ID}`;
const CREATED = "2026-11-30T10:00:00.000Z";
const NOTE_PREFIX = "[vexillum] struck while";

type World = {
  s: Sandbox;
  env: Record<string, string>;
  herdr: FakeHerdrEnv;
  paths: ProjectPaths;
  camp: string;
  tab: string;
  run(...args: string[]): ReturnType<typeof vx>;
  task(): Record<string, unknown>;
  [Symbol.dispose](): void;
};

function commit(dir: string, file: string, text: string, msg: string): string {
  writeFileSync(join(dir, file), text);
  git(dir, "add", file);
  git(dir, "commit", "-q", "-m", msg);
  return git(dir, "rev-parse", "HEAD");
}

function branchExists(dir: string, branch: string): boolean {
  return Bun.spawnSync(["git", "-C", dir, "show-ref", "--verify", "--quiet", `refs/heads/${branch}`]).exitCode === 0;
}

/**
 * An initialized, committed project; a camp leased to task ID through the real pool; a herdr tab
 * hosting its agent in the fake herdr; and the task file written as dispatch would leave it.
 */
async function world(over: Record<string, unknown> = {}): Promise<World> {
  const s = sandbox();
  const herdr = installFakeHerdr(s.bin);
  const env = { ...s.env, ...herdr };
  await initProject(s.project, env);
  git(s.project, "add", "-A");
  git(s.project, "commit", "-q", "-m", "vexillum scaffold");
  const paths = projectPaths(join(s.home, ".vexillum"), s.project);
  const camp = await acquireCamp(paths, { project: s.project, taskId: ID, base: "main", exec: realExec });
  const ws = createWorkspace(herdr, { cwd: s.project });
  const tab = createTab(herdr, ws.workspace_id, { cwd: camp.path, label: "vx-fix-the-bug" });
  addAgent(herdr, tab.pane_id, { name: "vx-fix-the-bug", status: "idle" });
  const file = join(paths.tasksDir, `${ID}.json`);
  mkdirSync(paths.tasksDir, { recursive: true });
  const doc = {
    id: ID,
    schema_version: 1,
    kind: "mission",
    prompt: "fix the bug",
    status: "running",
    created_at: CREATED,
    updated_at: CREATED,
    camp_slot: camp.slot,
    camp_path: camp.path,
    camp_branch: BRANCH,
    camp_base: "main",
    output: "soldier transcript",
    backend: "herdr",
    herdr_workspace_id: ws.workspace_id,
    herdr_tab_id: tab.tab_id,
    herdr_pane_id: tab.pane_id,
    herdr_agent_name: "vx-fix-the-bug",
    harness: "claude",
    ...over,
  };
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return {
    s,
    env,
    herdr,
    paths,
    camp: camp.path,
    tab: tab.tab_id,
    run: (...args) => vx(args, { cwd: s.project, env }),
    task: () => JSON.parse(readFileSync(file, "utf8")),
    [Symbol.dispose]: () => s[Symbol.dispose](),
  };
}

function tabCloses(w: World): string[][] {
  return callsOf(w.herdr, "tab", "close").map((c) => c.argv);
}

function wakes(w: World): string[] {
  return existsSync(w.paths.wakesDir) ? readdirSync(w.paths.wakesDir) : [];
}

const STRUCK = "struck: camp returned to the pool, herdr pane closed.\n";

describe("vx land", () => {
  test("fast-forwards base, records done, strikes: lease cleared, tab closed, branch deleted", async () => {
    using w = await world();
    const head = commit(w.camp, "fix.txt", "fixed\n", "fix the bug");
    const r = await w.run("land", ID);
    expect(r).toEqual({ code: 0, stdout: `landed: fast-forwarded ${w.s.project} to ${BRANCH}\n${STRUCK}`, stderr: "" });
    expect(git(w.s.project, "rev-parse", "main")).toBe(head);
    const t = w.task();
    expect(t.status).toBe("done");
    expect(t.updated_at).not.toBe(CREATED);
    expect(t.output).toBe("soldier transcript");
    expect(leaseOf(w.paths, ID)).toBeUndefined();
    expect(tabCloses(w)).toEqual([["tab", "close", w.tab]]);
    expect(branchExists(w.s.project, BRANCH)).toBe(false);
    expect(git(w.camp, "status", "--porcelain")).toBe("");
    expect(Bun.spawnSync(["git", "-C", w.camp, "symbolic-ref", "-q", "HEAD"]).exitCode).toBe(1); // detached
    expect(git(w.camp, "rev-parse", "HEAD")).toBe(head);
    expect(wakes(w)).toEqual([]);
  });

  test("a mission with no commit ahead of its base is refused: nothing recorded, the soldier's pane left open", async () => {
    using w = await world();
    const r = await w.run("land", ID);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: land refused: nothing to land yet: ${BRANCH} has no commit that main lacks - wait for the soldier's commits, or strike task ${ID} if its work is already in main\n`,
    });
    expect(w.task().status).toBe("running");
    expect(w.task().updated_at).toBe(CREATED);
    expect(tabCloses(w)).toEqual([]);
    expect(leaseOf(w.paths, ID)?.leased_by).toBe(ID);
  });

  test("an interrupted task keeps its status and updated_at", async () => {
    using w = await world({ status: "interrupted" });
    commit(w.camp, "fix.txt", "fixed\n", "fix the bug");
    const r = await w.run("land", ID);
    expect(r.code).toBe(0);
    expect(w.task().status).toBe("interrupted");
    expect(w.task().updated_at).toBe(CREATED);
  });

  test("a scout is refused", async () => {
    using w = await world({ kind: "scout" });
    const r = await w.run("land", ID);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: task ${ID} is a scout - scouts report, they do not land; strike it once you have read its report\n`,
    });
  });

  test("a shipped task is refused", async () => {
    using w = await world({ status: "shipped" });
    const r = await w.run("land", ID);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: task ${ID} is shipped - landing a pull request is not supported yet\n` });
  });

  test("a dirty project checkout is refused and nothing moves (untracked files alone do not block)", async () => {
    using w = await world();
    commit(w.camp, "fix.txt", "fixed\n", "fix the bug");
    const before = git(w.s.project, "rev-parse", "main");
    writeFileSync(join(w.s.project, "notes.txt"), "untracked notes\n");
    writeFileSync(join(w.s.project, "README.md"), "edited but not committed\n");
    const r = await w.run("land", ID);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: project checkout ${w.s.project} has uncommitted changes, refusing to land ${BRANCH}\n`,
    });
    expect(git(w.s.project, "rev-parse", "main")).toBe(before);
    expect(w.task().status).toBe("running");
    expect(leaseOf(w.paths, ID)?.leased_by).toBe(ID);
    expect(tabCloses(w)).toEqual([]);
  });

  test("a checkout on another branch is refused", async () => {
    using w = await world();
    git(w.s.project, "checkout", "-q", "-b", "feature");
    const r = await w.run("land", ID);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: project checkout ${w.s.project} is on feature, not main - check out main, then retry\n`,
    });
  });

  test("a diverged branch is refused", async () => {
    using w = await world();
    commit(w.camp, "fix.txt", "fixed\n", "fix the bug");
    const main = commit(w.s.project, "other.txt", "other\n", "someone else landed first");
    const r = await w.run("land", ID);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: ${BRANCH} is not a fast-forward of main and task ${ID} is running (its soldier is working) - land rebases a branch only under an idle soldier; wait for its wake, then retry\n`,
    });
    expect(git(w.s.project, "rev-parse", "main")).toBe(main);
  });

  test("a fast-forward git refuses shows git's reason and the files, not its closing 'Aborting'", async () => {
    using w = await world();
    commit(w.camp, "fix.txt", "fixed\n", "fix the bug");
    commit(w.camp, "README.md", "# demo, fixed\n", "fix the readme");
    const before = git(w.s.project, "rev-parse", "main");
    const merge = `git merge --ff-only ${BRANCH} failed in ${w.s.project}`;
    // Untracked files pass the clean check, but the branch would overwrite this one.
    writeFileSync(join(w.s.project, "fix.txt"), "the user's own notes\n");
    const untracked = await w.run("land", ID);
    expect(untracked).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: land refused: ${merge}: error: The following untracked working tree files would be overwritten by merge: fix.txt\n`,
    });
    rmSync(join(w.s.project, "fix.txt"));
    // A local change git status does not show (assume-unchanged), so only the merge finds it.
    git(w.s.project, "update-index", "--assume-unchanged", "README.md");
    writeFileSync(join(w.s.project, "README.md"), "# demo, edited here\n");
    const dirty = await w.run("land", ID);
    expect(dirty).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: land refused: ${merge}: error: Your local changes to the following files would be overwritten by merge: README.md\n`,
    });
    expect(git(w.s.project, "rev-parse", "main")).toBe(before);
    expect(w.task().status).toBe("running");
    expect(leaseOf(w.paths, ID)?.leased_by).toBe(ID);
  });

  test("when the automatic strike fails the merge stands and it exits 1", async () => {
    using w = await world({ status: "blocked" });
    const head = commit(w.camp, "fix.txt", "fixed\n", "fix the bug");
    writeFileSync(join(w.camp, "scratch.txt"), "left behind\n");
    const r = await w.run("land", ID);
    expect(r).toEqual({
      code: 1,
      stdout: `landed: fast-forwarded ${w.s.project} to ${BRANCH}\n`,
      stderr: `vx: landed, but automatic strike failed: camp of task ${ID} has uncommitted changes - retry with 'vx strike ${ID}'\n`,
    });
    expect(git(w.s.project, "rev-parse", "main")).toBe(head);
    expect(w.task().status).toBe("done");
    expect(leaseOf(w.paths, ID)?.leased_by).toBe(ID);
    expect(tabCloses(w)).toEqual([]);
  });
});

describe("vx strike", () => {
  test("an unlanded camp is refused; --discard lists the commit and the dirty file, then strikes", async () => {
    using w = await world();
    const head = commit(w.camp, "wip.txt", "wip\n", "half-done work");
    writeFileSync(join(w.camp, "scratch.txt"), "scratch\n");
    let r = await w.run("strike", ID);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: strike refused: camp of task ${ID} has uncommitted changes\n` });
    git(w.camp, "stash", "-u", "-q");
    r = await w.run("strike", ID);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: strike refused: ${BRANCH} is not landed in main - land it first, or strike with --discard (only with the general's approval)\n`,
    });
    git(w.camp, "stash", "pop", "-q");
    expect(tabCloses(w)).toEqual([]);
    expect(leaseOf(w.paths, ID)?.leased_by).toBe(ID);

    r = await w.run("strike", ID, "--discard");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`discarded commit ${head} half-done work\ndiscarded uncommitted change: ?? scratch.txt\n${STRUCK}`);
    expect(r.stderr).toBe(`vx: kept branch ${BRANCH}: it is not an ancestor of main\n`);
    expect(existsSync(join(w.camp, "scratch.txt"))).toBe(false);
    expect(git(w.camp, "rev-parse", "HEAD")).toBe(git(w.s.project, "rev-parse", "main"));
    expect(git(w.s.project, "rev-parse", BRANCH)).toBe(head); // the work stays reachable
    expect(leaseOf(w.paths, ID)).toBeUndefined();
    expect(tabCloses(w)).toEqual([["tab", "close", w.tab]]);
  });

  test("a scout without its report is refused; --force strikes it and says so", async () => {
    using w = await world({ kind: "scout" });
    const report = join(w.paths.reportsDir, `vx-fix-the-bug-${ID}.md`);
    let r = await w.run("strike", ID);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: strike refused: scout task ${ID} has no report at ${report}\n` });
    r = await w.run("strike", ID, "--force");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(STRUCK);
    expect(r.stderr).toBe(`vx: --force: striking scout task ${ID} without its report at ${report}\n`);
  });

  test("a scout with its report strikes without --force", async () => {
    using w = await world({ kind: "scout", status: "done" });
    mkdirSync(w.paths.reportsDir, { recursive: true });
    writeFileSync(join(w.paths.reportsDir, `vx-fix-the-bug-${ID}.md`), "# findings\n");
    expect(await w.run("strike", ID)).toEqual({ code: 0, stdout: STRUCK, stderr: "" });
    expect(w.task().status).toBe("done");
    expect(w.task().updated_at).toBe(CREATED);
  });

  test("striking twice: the second is refused as already struck", async () => {
    using w = await world({ status: "done" });
    expect((await w.run("strike", ID)).code).toBe(0);
    const r = await w.run("strike", ID);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: strike refused: task ${ID}'s camp is not leased (already struck)\n` });
    expect(tabCloses(w)).toHaveLength(1);
  });

  test("a running task becomes interrupted with the note; the tab already gone counts as closed", async () => {
    using w = await world();
    closeFakeTab(w.herdr, w.tab);
    const r = await w.run("strike", ID);
    expect(r).toEqual({ code: 0, stdout: STRUCK, stderr: "" });
    const t = w.task();
    expect(t.status).toBe("interrupted");
    expect(t.updated_at).not.toBe(CREATED);
    expect(t.output).toBe(`soldier transcript\n\n${NOTE_PREFIX} running - 'vx strike' closed its pane.`);
    expect(branchExists(w.s.project, BRANCH)).toBe(false);
    expect(wakes(w)).toEqual([]);
  });

  test("squash-merged work counts as landed", async () => {
    using w = await world({ status: "done" });
    commit(w.camp, "fix.txt", "fixed\n", "fix the bug");
    commit(w.camp, "more.txt", "more\n", "and more");
    git(w.s.project, "merge", "-q", "--squash", BRANCH);
    git(w.s.project, "commit", "-q", "-m", "squashed");
    const r = await w.run("strike", ID);
    expect(r).toEqual({ code: 0, stdout: STRUCK, stderr: `vx: kept branch ${BRANCH}: it is not an ancestor of main\n` });
    expect(leaseOf(w.paths, ID)).toBeUndefined();
    expect(w.task().status).toBe("done");
  });

  test("a tmux task: its session looked up by exact name before any kill, a missing session counts as closed", async () => {
    using w = await world({
      backend: "tmux",
      tmux_target: "vx-fix-the-bug",
      status: "pending",
      herdr_workspace_id: undefined,
      herdr_tab_id: undefined,
      herdr_pane_id: undefined,
      herdr_agent_name: undefined,
    });
    const log = join(w.s.bin, "tmux.log");
    writeExecutable(join(w.s.bin, "tmux"), `#!/bin/sh\necho "$@" >> '${log}'\necho "can't find session: vx-fix-the-bug" >&2\nexit 1\n`);
    const r = await w.run("strike", ID);
    expect(r).toEqual({ code: 0, stdout: "struck: camp returned to the pool, tmux session closed.\n", stderr: "" });
    // Only the lookup of its pane: nothing that is not verified as the task's is killed.
    expect(readFileSync(log, "utf8")).toStartWith("-u list-panes -t =vx-fix-the-bug: ");
    expect(readFileSync(log, "utf8")).not.toContain("kill-session");
    expect(w.task().output).toBe(`soldier transcript\n\n${NOTE_PREFIX} pending - 'vx strike' closed its pane.`);
    expect(tabCloses(w)).toEqual([]);
  });
});

describe("task ids", () => {
  for (const cmd of ["land", "strike"]) {
    test(`${cmd}: a malformed id is a usage error; an unknown one is refused`, async () => {
      using w = await world();
      const bad = await w.run(cmd, "0123456789ABCDEF");
      expect(bad.code).toBe(64);
      expect(bad.stderr).toStartWith('vx: invalid task id "0123456789ABCDEF": expected 16 lowercase hex characters, or a unique prefix of at least 4\n');
      expect(await w.run(cmd, "ffffffffffffffff")).toEqual({ code: 1, stdout: "", stderr: "vx: no task ffffffffffffffff in this project - 'vx status' lists its tasks\n" });
      expect((await w.run(cmd)).code).toBe(64);
    });

    test(`${cmd}: the 8 characters the lists show name the task; a prefix of none is refused (TSK-02)`, async () => {
      using w = await world({ status: "done" });
      // Land needs a commit ahead of the base; strike needs the work landed (none is).
      if (cmd === "land") commit(w.camp, "fix.txt", "fixed\n", "fix the bug");
      expect(await w.run(cmd, "ffff")).toEqual({ code: 1, stdout: "", stderr: "vx: no task ffff in this project - 'vx status' lists its tasks\n" });
      const r = await w.run(cmd, ID.slice(0, 8));
      expect(r.code).toBe(0);
      expect(leaseOf(w.paths, ID)).toBeUndefined();
    });

    test(`${cmd}: refused from inside a camp (STA-08)`, async () => {
      using w = await world();
      const r = await vx([cmd, ID], { cwd: w.camp, env: w.env });
      expect(r.code).toBe(1);
      expect(r.stderr).toStartWith(`vx: running from inside ${w.camp}, which looks like a vexillum-managed camp`);
      expect(leaseOf(w.paths, ID)?.leased_by).toBe(ID);
    });
  }
});
