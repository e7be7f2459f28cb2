// What a struck soldier leaves in the state dir (issue 15, item 19): its reported state and its
// hook files go at strike, and so at land, which strikes; nothing is followed through a link.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newTaskId } from "../../src/state/ids";
import { git } from "../helpers";
import { type Field, field, seedTask } from "./soldier-field";

/** Its reported state and hook files as a tmux launch leaves them, one hook being a link out. */
function plantSoldierFiles(f: Field, id: string, outside: string): { state: string; hooks: string } {
  const state = join(f.paths.statesDir, `${id}.json`);
  const hooks = join(f.paths.stateDir, "hooks", id);
  mkdirSync(f.paths.statesDir, { recursive: true });
  mkdirSync(hooks, { recursive: true });
  writeFileSync(state, JSON.stringify({ task_id: id, state: "idle", at: "2026-11-30T10:00:00.000Z" }));
  writeFileSync(join(hooks, "claude-settings.json"), "{}\n");
  symlinkSync(outside, join(hooks, "linked"));
  return { state, hooks };
}

function outsideDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "vx-outside-"));
  writeFileSync(join(dir, "keep"), "not vx's\n");
  return dir;
}

describe("a struck soldier's files in the state dir", () => {
  test("land (which strikes) removes states/<id>.json and hooks/<id>/, following no link; other tasks' stay", async () => {
    await using f = await field();
    const outside = outsideDir();
    try {
      const { task } = await seedTask(f, { status: "done" });
      const mine = plantSoldierFiles(f, task.id, outside);
      const other = plantSoldierFiles(f, newTaskId(), outside);
      writeFileSync(join(task.camp_path!, "fix.txt"), "fixed\n");
      git(task.camp_path!, "add", "fix.txt");
      git(task.camp_path!, "commit", "-q", "-m", "fix the bug");
      const r = await f.run(["land", task.id]);
      expect(r).toMatchObject({ code: 0, stderr: "" });
      expect(existsSync(mine.state)).toBe(false);
      expect(existsSync(mine.hooks)).toBe(false);
      expect(existsSync(other.state)).toBe(true);
      expect(readdirSync(other.hooks).sort()).toEqual(["claude-settings.json", "linked"]);
      expect(readdirSync(outside)).toEqual(["keep"]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test("a refused strike keeps them; strike --discard removes them", async () => {
    await using f = await field();
    const outside = outsideDir();
    try {
      const { task } = await seedTask(f, { status: "done" });
      const mine = plantSoldierFiles(f, task.id, outside);
      writeFileSync(join(task.camp_path!, "fix.txt"), "fixed\n");
      git(task.camp_path!, "add", "fix.txt");
      git(task.camp_path!, "commit", "-q", "-m", "fix the bug");
      expect((await f.run(["strike", task.id])).code).toBe(1);
      expect(existsSync(mine.state)).toBe(true);
      expect(existsSync(mine.hooks)).toBe(true);
      const r = await f.run(["strike", task.id, "--discard"]);
      expect(r.code).toBe(0);
      expect(existsSync(mine.state)).toBe(false);
      expect(existsSync(mine.hooks)).toBe(false);
      expect(readdirSync(outside)).toEqual(["keep"]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
