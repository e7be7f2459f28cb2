// AWT-05/WAK-07: `vx sentinel await` checks its owner once more between claiming a wake and
// printing it. An owner lost in that gap hears nothing, so the wake goes back for the next reader.
//
// In-process, with the await's parent as a seam: an owner that dies reparents its await, so
// `ppid()` stops naming it. Here it does so exactly while the wake is claimed (renamed away from
// its name), which is the window between the claim and the print.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { awaitWake } from "../../src/awaiters/await";
import { type Queue, queue, reasonFor, taskWithWake } from "../await-kit";
import { testDeps } from "../deps";

const ID = "0123456789abcdef";

/** The soldier queue's entries (its `forum/` subdirectory aside). */
const soldierQueue = (q: Queue) => readdirSync(q.wakes).filter((n) => n !== "forum");

let current: Queue | undefined;
afterEach(() => {
  current?.[Symbol.dispose]();
  current = undefined;
});

/** The await's parent: its owner (this process) until `lost()` says the owner is gone. */
function parentSeam(lost: () => boolean) {
  const seen = { whileLost: 0 };
  return {
    seen,
    ppid: () => {
      if (!lost()) return process.pid;
      seen.whileLost++;
      return 1; // reparented to init: the owner died
    },
  };
}

describe("the await's owner check right before printing", () => {
  test("an owner lost after the claim gets no wake, and the wake is put back whole", async () => {
    current = await queue();
    const q = current;
    const wake = taskWithWake(q, ID);
    const text = readFileSync(wake, "utf8");
    // The wake is claimed exactly while it is missing from its name.
    const seam = parentSeam(() => !existsSync(wake));
    const d = { ...testDeps({ cwd: q.project, env: q.env }), ppid: seam.ppid };
    expect(await awaitWake(d)).toBe(0);
    expect(seam.seen.whileLost).toBeGreaterThan(0); // the owner was asked about while the wake was held
    expect(d.text()).toEqual({ stdout: "", stderr: "" });
    expect(readFileSync(wake, "utf8")).toBe(text);
    expect(soldierQueue(q)).toEqual([`${ID}.json`]); // no claimed copy left behind
    expect(readdirSync(join(q.root, "sentinel-awaiters")).filter((n) => n.endsWith(".json"))).toEqual([]);
  });

  test("an owner that stays gets the wake, which is then consumed", async () => {
    current = await queue();
    const q = current;
    const wake = taskWithWake(q, ID);
    const seam = parentSeam(() => false);
    const d = { ...testDeps({ cwd: q.project, env: q.env }), ppid: seam.ppid };
    expect(await awaitWake(d)).toBe(2);
    expect(d.text()).toEqual({ stdout: "", stderr: reasonFor(ID) });
    expect(existsSync(wake)).toBe(false);
    expect(soldierQueue(q)).toEqual([]);
  });
});
