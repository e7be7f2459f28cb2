// The drain's fast path says "nothing to deliver" only where the full drain finds nothing (AWT-01, AWT-02):
// real directories, a real git repository, the state layout of state/paths.ts.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nothingToDeliver } from "../../src/fast-drain";
import { projectPaths, stateRoot } from "../../src/state/paths";
import { git, sandbox } from "../helpers";

const start = process.cwd();
afterEach(() => expect(process.cwd()).toBe(start));

function world() {
  const s = sandbox();
  const env = { HOME: s.home, HERDR_WORKSPACE_ID: "w1" };
  const paths = projectPaths(stateRoot(env), s.project);
  mkdirSync(paths.forumWakesDir, { recursive: true });
  return Object.assign(s, { env, paths });
}

describe("nothingToDeliver", () => {
  test("empty queues, in the project and below it: nothing", () => {
    using w = world();
    mkdirSync(join(w.project, "src", "deep"), { recursive: true });
    writeFileSync(join(w.paths.wakesDir, ".1111111111111111.tmp"), "{}");
    expect(nothingToDeliver(w.env, w.project)).toBe(true);
    expect(nothingToDeliver(w.env, join(w.project, "src", "deep"))).toBe(true);
  });

  test.each([
    ["a wake", (p: ReturnType<typeof projectPaths>) => join(p.wakesDir, "1111111111111111.json")],
    ["a claim", (p: ReturnType<typeof projectPaths>) => join(p.wakesDir, "1111111111111111.json.claimed-99-1")],
    ["a forum wake", (p: ReturnType<typeof projectPaths>) => join(p.forumWakesDir, "s1.json")],
  ])("%s in projectPaths' queue: the full drain decides", (_what, file) => {
    using w = world();
    writeFileSync(file(w.paths), "{}");
    expect(nothingToDeliver(w.env, w.project)).toBe(false);
    expect(nothingToDeliver({ ...w.env, HERDR_WORKSPACE_ID: "" }, w.project)).toBe(true);
  });

  test("through a linked HOME and a linked project, the key is the real project's", () => {
    using w = world();
    writeFileSync(join(w.paths.wakesDir, "1111111111111111.json"), "{}");
    symlinkSync(w.home, join(w.home, "..", "home-link"));
    symlinkSync(w.project, join(w.home, "..", "project-link"));
    expect(nothingToDeliver({ ...w.env, HOME: join(w.home, "..", "home-link") }, join(w.home, "..", "project-link"))).toBe(false);
  });

  test("a worktree's .git file marks its top, whose own queue is looked at", () => {
    using w = world();
    const camp = join(w.home, "..", "wt");
    git(w.project, "worktree", "add", "-q", "-b", "b1", camp);
    expect(nothingToDeliver(w.env, camp)).toBe(true);
    const campPaths = projectPaths(stateRoot(w.env), camp);
    mkdirSync(campPaths.wakesDir, { recursive: true });
    writeFileSync(join(campPaths.wakesDir, "1111111111111111.json"), "{}");
    expect(nothingToDeliver(w.env, camp)).toBe(false);
  });

  test("outside any repository, inside the state root, or with no state root: nothing", () => {
    using w = world();
    writeFileSync(join(w.paths.wakesDir, "1111111111111111.json"), "{}");
    expect(nothingToDeliver(w.env, w.home)).toBe(true);
    const campDir = join(w.paths.campsDir, "1", "project");
    mkdirSync(campDir, { recursive: true });
    git(campDir, "init", "-q");
    expect(nothingToDeliver(w.env, campDir)).toBe(true);
    expect(nothingToDeliver({ ...w.env, HOME: join(w.home, "elsewhere") }, w.project)).toBe(true);
  });

  test.each([
    ["HOME unset", { HOME: "" }],
    ["a tmux pane", { TMUX_PANE: "%1" }],
    ["GIT_DIR", { GIT_DIR: "/x/.git" }],
    ["GIT_WORK_TREE", { GIT_WORK_TREE: "/x" }],
    ["a relative HOME", { HOME: "home" }],
    ["a .. in HOME", { HOME: "/nowhere/../tmp" }],
  ])("%s: the full drain decides", (_what, over) => {
    using w = world();
    expect(nothingToDeliver({ ...w.env, ...over }, w.project)).toBe(false);
  });

  test("a queue that is not a directory: the full drain decides", () => {
    using w = world();
    rmSync(w.paths.wakesDir, { recursive: true });
    writeFileSync(w.paths.wakesDir, "");
    expect(nothingToDeliver(w.env, w.project)).toBe(false);
  });
});
