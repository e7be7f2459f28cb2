// The sentinel's change watch (src/sentinel/loop.ts): it makes the dirs it watches, but never a state root
// removed since the pass listed its projects (a test's sandbox, or a person's rm -rf ~/.vexillum).
// And how often its loop runs a full collection.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { changeWatch, gcPacer } from "../../src/sentinel/loop";
import { projectPaths } from "../../src/state/paths";
import { COUNTS, GUARDS, realClock } from "../../src/time";

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

test("a full collection runs once per GUARDS.sentinelGc of real time while the heap grows little, whatever the poll", () => {
  const MiB = 1024 * 1024;
  const gc = gcPacer(1_000, 10 * MiB);
  // Passes every 100 ms (a test's VX_TIME_SCALE), each leaving a little garbage: one collection per 5 s, not fifty.
  const due: number[] = [];
  for (let t = 1_100; t <= 11_000; t += 100) {
    if (!gc.due(t, 10 * MiB + 4096)) continue;
    due.push(t);
    gc.collected(t, 10 * MiB);
  }
  expect(due).toEqual([1_000 + GUARDS.sentinelGc, 1_000 + 2 * GUARDS.sentinelGc]);
  // At the default poll every pass is GUARDS.sentinelGc apart: each one collects, as before.
  const slow = gcPacer(0, MiB);
  const everyPass = [5_000, 10_000, 15_000].map((t) => {
    const due = slow.due(t, MiB);
    if (due) slow.collected(t, MiB);
    return due;
  });
  expect(everyPass).toEqual([true, true, true]);
});

test("a pass that grew the heap by COUNTS.sentinelGcGrowth is collected at once; a clock that stepped back collects and counts from there", () => {
  const MiB = 1024 * 1024;
  const gc = gcPacer(0, 8 * MiB);
  expect(gc.due(100, 8 * MiB + COUNTS.sentinelGcGrowth - 1)).toBe(false);
  expect(gc.due(100, 8 * MiB + COUNTS.sentinelGcGrowth)).toBe(true);
  gc.collected(100, 9 * MiB);
  // Growth counts from the heap the last collection left.
  expect(gc.due(200, 8 * MiB + COUNTS.sentinelGcGrowth)).toBe(false);
  expect(gc.due(200, 9 * MiB + COUNTS.sentinelGcGrowth)).toBe(true);
  // The clock seen going backwards: collect now and count from there, never wait for the old time to come back.
  expect(gc.due(50, 9 * MiB)).toBe(true);
  gc.collected(50, 9 * MiB);
  expect(gc.due(150, 9 * MiB)).toBe(false);
  expect(gc.due(50 + GUARDS.sentinelGc, 9 * MiB)).toBe(true);
});
