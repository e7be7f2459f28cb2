// Destructive git (reset, clean, checkout, branch delete) runs only in a camp of this project's
// pool: a task file whose camp_path names the project checkout, the user's own worktree, another
// repository's worktree or a symlink out of the camps dir is refused and nothing changes.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readPool } from "../../src/camps/pool";
import type { Pool, Task } from "../../src/state/schemas";
import { taskPath } from "../../src/state/tasks";
import { readState } from "../fakes/herdr-control";
import { git } from "../helpers";
import { type Field, field, seedTask } from "./soldier-field";

/** A checkout with a tracked change and an untracked file: what a reset and clean would destroy. */
function dirty(dir: string): void {
  writeFileSync(join(dir, "README.md"), "# demo\nmy uncommitted edit\n");
  writeFileSync(join(dir, "notes.txt"), "my untracked notes\n");
}

/** What must survive a refusal: HEAD (branch or detached), status and the two files' text. */
function snapshot(dir: string) {
  return {
    head: git(dir, "rev-parse", "--abbrev-ref", "HEAD"),
    status: git(dir, "status", "--porcelain", "--untracked-files=all"),
    readme: readFileSync(join(dir, "README.md"), "utf8"),
    notes: readFileSync(join(dir, "notes.txt"), "utf8"),
  };
}

/** Rewrites the task file with `over`, as a hand edit or a stale copy would leave it. */
function editTask(f: Field, id: string, over: Partial<Task>): Task {
  const file = taskPath(f.paths, id);
  const edited = { ...JSON.parse(readFileSync(file, "utf8")), ...over };
  writeFileSync(file, JSON.stringify(edited, null, 2));
  return edited;
}

function refusal(f: Field, id: string, path: string, reason: string): string {
  return `vx: ${taskPath(f.paths, id)}: camp_path ${path} is not task ${id}'s camp (${reason}) - vx will not run destructive git there; fix camp_path and camp_slot in the task file, or remove the file\n`;
}

/** The scaffold committed, so the project checkout is clean and its HEAD landed. */
function commitScaffold(f: Field): void {
  git(f.project, "add", "-A");
  git(f.project, "commit", "-q", "-m", "vexillum scaffold");
}

function expectUntouched(f: Field, task: Task, before: { tabs: string[]; pool: Pool }): void {
  expect(f.task(task.id)).toEqual(task);
  expect(readPool(f.paths)).toEqual(before.pool);
  expect(readState(f.fh).tabs.map((t) => t.tab_id)).toEqual(before.tabs);
}

function stateOf(f: Field) {
  return { tabs: readState(f.fh).tabs.map((t) => t.tab_id), pool: readPool(f.paths) };
}

const OUTSIDE = (f: Field) => `it is outside this project's camps directory ${f.paths.campsDir}`;

describe("camp_path naming the project checkout", () => {
  test("strike --discard is refused and the uncommitted and untracked files stay", async () => {
    await using f = await field();
    const { task } = await seedTask(f);
    const edited = editTask(f, task.id, { camp_path: f.project });
    dirty(f.project);
    const before = snapshot(f.project);
    const state = stateOf(f);
    const r = await f.run(["strike", task.id, "--discard"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: refusal(f, task.id, f.project, OUTSIDE(f)) });
    expect(snapshot(f.project)).toEqual(before);
    expect(before.head).toBe("main");
    expectUntouched(f, edited, state);
  });

  test("plain strike is refused: the clean, landed checkout is not detached", async () => {
    await using f = await field();
    commitScaffold(f);
    const { task } = await seedTask(f);
    const edited = editTask(f, task.id, { camp_path: f.project });
    const state = stateOf(f);
    const r = await f.run(["strike", task.id]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: refusal(f, task.id, f.project, OUTSIDE(f)) });
    expect(git(f.project, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(git(f.project, "status", "--porcelain")).toBe("");
    expectUntouched(f, edited, state);
  });

  test("redispatch is refused before it discards anything", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "interrupted" });
    const edited = editTask(f, task.id, { camp_path: f.project });
    dirty(f.project);
    const before = snapshot(f.project);
    const state = stateOf(f);
    const r = await f.run(["redispatch", task.id]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: refusal(f, task.id, f.project, OUTSIDE(f)) });
    expect(snapshot(f.project)).toEqual(before);
    expect(git(f.project, "rev-parse", "--verify", `refs/heads/vexillum/${task.id}`)).toBe(git(f.project, "rev-parse", "main"));
    expectUntouched(f, edited, state);
  });
});

describe("camp_path outside the state dir", () => {
  test("the user's own linked worktree of the project: strike --discard refused, its work kept", async () => {
    await using f = await field();
    const { task } = await seedTask(f);
    const mine = join(dirname(f.project), "my-feature");
    git(f.project, "worktree", "add", "-q", "-b", "my-feature", mine, "main");
    const edited = editTask(f, task.id, { camp_path: mine });
    dirty(mine);
    const before = snapshot(mine);
    const state = stateOf(f);
    const r = await f.run(["strike", task.id, "--discard"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: refusal(f, task.id, mine, OUTSIDE(f)) });
    expect(snapshot(mine)).toEqual(before);
    expect(before.head).toBe("my-feature");
    expectUntouched(f, edited, state);
  });

  test("another repository's worktree: strike --discard and redispatch refused, nothing released or reset", async () => {
    await using f = await field();
    const other = join(dirname(f.project), "other-repo");
    mkdirSync(other);
    git(other, "init", "-q", "-b", "main");
    writeFileSync(join(other, "README.md"), "# other\n");
    git(other, "add", "README.md");
    git(other, "commit", "-q", "-m", "other");
    const theirs = join(dirname(f.project), "other-wt");
    git(other, "worktree", "add", "-q", "-b", "theirs", theirs, "main");
    dirty(theirs);
    const before = snapshot(theirs);

    const { task } = await seedTask(f);
    const edited = editTask(f, task.id, { camp_path: theirs });
    let state = stateOf(f);
    let r = await f.run(["strike", task.id, "--discard"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: refusal(f, task.id, theirs, OUTSIDE(f)) });
    expectUntouched(f, edited, state);

    const { task: lost } = await seedTask(f, { status: "interrupted" });
    const editedLost = editTask(f, lost.id, { camp_path: theirs });
    state = stateOf(f);
    r = await f.run(["redispatch", lost.id]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: refusal(f, lost.id, theirs, OUTSIDE(f)) });
    expectUntouched(f, editedLost, state);
    expect(snapshot(theirs)).toEqual(before);
  });
});

describe("a camp slot's path that leads out of the camps dir", () => {
  test("the slot's directory replaced by a symlink to the project checkout: strike --discard refused", async () => {
    await using f = await field();
    const { task } = await seedTask(f);
    const camp = task.camp_path as string;
    renameSync(camp, `${camp}.moved`);
    symlinkSync(f.project, camp);
    dirty(f.project);
    const before = snapshot(f.project);
    const state = stateOf(f);
    const r = await f.run(["strike", task.id, "--discard"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: refusal(f, task.id, camp, OUTSIDE(f)) });
    expect(snapshot(f.project)).toEqual(before);
    expectUntouched(f, task, state);
  });
});

describe("camp_path naming another task's camp", () => {
  test("strike --discard is refused and the other soldier's camp keeps its work", async () => {
    await using f = await field();
    const { task: mine } = await seedTask(f);
    const { task: theirs } = await seedTask(f);
    const camp = theirs.camp_path as string;
    writeFileSync(join(camp, "notes.txt"), "the other soldier's work\n");
    const edited = editTask(f, mine.id, { camp_path: camp });
    const state = stateOf(f);
    const r = await f.run(["strike", mine.id, "--discard"]);
    const expected = join(f.paths.campsDir, String(mine.camp_slot), "project");
    expect(r).toEqual({ code: 1, stdout: "", stderr: refusal(f, mine.id, camp, `it is not camp slot ${mine.camp_slot}'s path ${expected}`) });
    expect(readFileSync(join(camp, "notes.txt"), "utf8")).toBe("the other soldier's work\n");
    expect(git(camp, "rev-parse", "--abbrev-ref", "HEAD")).toBe(`vexillum/${theirs.id}`);
    expectUntouched(f, edited, state);
  });
});
