// CMD-DEMO-02: which earlier demo dirs the next `vx demo` reaps. Only a dir of `$TMPDIR/vx-demo-*`
// whose owner file names a pid that no longer runs `vx demo`; a kept dir (no owner file), a
// link, another name or a running demo's dir is never touched. (The whole reap, with a killed
// demo's real server, sentinel and await, is test/e2e/demo.test.ts.)
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reapEarlierDemos } from "../../src/demo/reap";
import { realClock } from "../../src/time";
import { testDeps } from "../deps";
import { alive } from "../helpers";

test("only a demo dir whose owner no longer runs vx demo is removed", async () => {
  const base = mkdtempSync(join(tmpdir(), "vx-reap-"));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = base;
  // A pid that ran and is gone; and one alive that is not vx (a recycled pid).
  const gone = Bun.spawn(["true"]);
  await gone.exited;
  const other = Bun.spawn(["sleep", "60"]);
  try {
    const dir = (name: string, owner?: number) => {
      const d = join(base, name);
      mkdirSync(d);
      if (owner !== undefined) writeFileSync(join(d, "demo.pid"), `${owner}\n`);
      return d;
    };
    const dead = dir("vx-demo-aaaaaa", gone.pid);
    const recycled = dir("vx-demo-bbbbbb", other.pid);
    const kept = dir("vx-demo-cccccc");
    const elsewhere = dir("vx-demo-dd", gone.pid);
    const target = dir("not-a-demo", gone.pid);
    symlinkSync(target, join(base, "vx-demo-eeeeee"));
    const d = testDeps({ cwd: base, env: { PATH: process.env.PATH ?? "", HOME: base }, clock: realClock });
    const lines = await reapEarlierDemos(d);
    expect(lines.sort()).toEqual([dead, recycled].map((p) => `an earlier vx demo was stopped before its teardown: its tmux server, sentinel and temp dir ${p} are cleaned up now`));
    expect([dead, recycled, kept, elsewhere, target].map(existsSync)).toEqual([false, false, true, true, true]);
    expect(alive(other.pid)).toBe(true); // a pid is never signalled for being named in an owner file
  } finally {
    other.kill("SIGKILL");
    process.env.TMPDIR = saved;
  }
});
