// The forum's directory watch (FOR-09): which directories a state root asks for, and real inotify
// watches that follow a directory replaced by another at the same path.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDirWatch, wantedDirs } from "../../src/forum/watch";
import { waitFor } from "../helpers";

function tempRoot(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "vx-forum-watch-")));
}

function saveAtomically(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

describe("the forum's watch (FOR-09)", () => {
  test("the wanted set: the root for its three directories, every project's state dirs, each session's dir, an artifact's directory for its name alone", () => {
    const root = tempRoot();
    try {
      mkdirSync(join(root, "projects", "a-1234", "tasks"), { recursive: true });
      mkdirSync(join(root, "forums", "plan.md-0000abcd"), { recursive: true });
      mkdirSync(join(root, "forums", "not a session"), { recursive: true });
      const want = wantedDirs(root, ["/p/docs/plan.md", "/p/docs/notes.md"]);
      expect(want.get(root)).toEqual(new Set(["projects", "sentinel-awaiters", "forums"]));
      const state = join(root, "projects", "a-1234");
      for (const dir of [state, join(state, "tasks"), join(state, "wakes"), join(state, "wakes", "forum"), join(state, "states"), join(root, "forums", "plan.md-0000abcd")]) {
        expect({ dir, names: want.get(dir) }).toEqual({ dir, names: "all" });
      }
      expect(want.get("/p/docs")).toEqual(new Set(["plan.md", "notes.md"]));
      expect(want.has(join(root, "forums", "not a session"))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("a change in a watched directory calls back; a directory replaced at the same path is watched again once re-armed", async () => {
    const root = tempRoot();
    let calls = 0;
    const problems: string[] = [];
    const dirs = createDirWatch(
      5,
      () => calls++,
      (line) => problems.push(line),
    );
    try {
      const tasks = join(root, "tasks");
      mkdirSync(tasks);
      const want = new Map([
        [root, "all" as const],
        [tasks, "all" as const],
      ]);
      dirs.arm(want);
      expect(dirs.count()).toBe(2);
      saveAtomically(join(tasks, "1.json"), "{}");
      await waitFor(() => calls >= 1, 10_000, "the callback after a write");

      rmSync(tasks, { recursive: true });
      mkdirSync(tasks);
      // The parent's event: the server re-arms on it.
      await waitFor(() => calls >= 2, 10_000, "the callback after the directory was replaced");
      dirs.arm(want);
      const before = calls;
      saveAtomically(join(tasks, "2.json"), "{}");
      await waitFor(() => calls > before, 10_000, "the callback after a write in the new directory");
      expect(dirs.healthy()).toBe(true);
      expect(problems).toEqual([]);

      dirs.close();
      expect(dirs.armed()).toBe(false);
      expect(dirs.count()).toBe(0);
    } finally {
      dirs.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
