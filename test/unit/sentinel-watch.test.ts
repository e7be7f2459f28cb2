// The sentinel's change watch (src/sentinel/loop.ts): it makes the dirs it watches, but never a state root
// removed since the pass listed its projects (a test's sandbox, or a person's rm -rf ~/.vexillum).
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { changeWatch } from "../../src/sentinel/loop";
import { projectPaths } from "../../src/state/paths";
import { realClock } from "../../src/time";

const base = mkdtempSync(join(tmpdir(), "vx-watch-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A project's state dir under `base/home/.vexillum`, as the pass lists it. */
function project() {
  const paths = projectPaths(join(base, "home", ".vexillum"), join(base, "project"));
  mkdirSync(paths.stateDir, { recursive: true });
  return paths;
}

test("a project's states dir is made so a soldier's report can wake the sentinel", () => {
  const paths = project();
  const watch = changeWatch(realClock, () => {});
  try {
    watch.update([paths]);
    expect(existsSync(paths.statesDir)).toBe(true);
  } finally {
    watch.close();
  }
});

test("a root removed after the pass listed it is not made again, nor anything above it", () => {
  const paths = project();
  rmSync(join(base, "home"), { recursive: true });
  const watch = changeWatch(realClock, () => {});
  try {
    watch.update([paths]);
    expect(existsSync(join(base, "home"))).toBe(false);
  } finally {
    watch.close();
  }
});
