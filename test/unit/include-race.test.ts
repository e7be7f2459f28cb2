// STA-10's copy against a checkout that changes under it: another process swaps a directory of
// the checkout for a link to a directory outside it, and back, as fast as it can, while camps are
// set up. No file from outside the checkout may ever reach the camp, whatever moment the swap hits.
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { copyIncluded, copyListed } from "../../src/camps/include";
import { realExec } from "../../src/exec";
import { commitIgnores, git, sandbox, waitFor } from "../helpers";

// The swapper: `sub` is the real directory, then (renamed aside) a link to the outside one, then
// real again; the renames are the fastest way to do it, so each state lasts a few microseconds.
const SWAPPER = `
const { renameSync, symlinkSync, writeFileSync } = require("node:fs");
const [checkout, outside, flag] = process.argv.slice(2);
const sub = checkout + "/sub", aside = checkout + "/.sub-aside", link = checkout + "/.sub-link";
symlinkSync(outside, link);
writeFileSync(flag, "");
for (;;) {
  renameSync(sub, aside);
  renameSync(link, sub);
  renameSync(sub, link);
  renameSync(aside, sub);
}
`;

/** What the copy says when the swap is met at the open itself. */
const MET = "its directory sub is a link, not followed";

test("a directory swapped for a link to outside during the copy never lets an outside file in", async () => {
  using s = sandbox();
  const p = s.project;
  commitIgnores(p, "sub/\n.sub-*\n");
  mkdirSync(join(p, "sub"));
  writeFileSync(join(p, "sub", "app.env"), "INSIDE\n");
  writeFileSync(join(p, ".worktreeinclude"), "sub/app.env\n");
  const outside = join(s.home, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "app.env"), "OUTSIDE\n");
  const camp = join(s.home, "camp");
  git(p, "worktree", "add", "-q", "--detach", camp);

  // git lists the file once, before the swapping starts (as copyIncluded does before it copies);
  // the copy itself then runs as often as it takes to meet the swap many times.
  expect((await copyIncluded(p, camp, realExec)).copied).toEqual(["sub/app.env"]);

  const script = join(s.home, "swapper.js");
  const flag = join(s.home, "swapping");
  writeFileSync(script, SWAPPER);
  const swapper = Bun.spawn([process.execPath, script, p, outside, flag], { stdout: "ignore", stderr: "pipe" });
  let rounds = 0;
  let copies = 0;
  const skipped = new Set<string>();
  const leaked: string[] = [];
  try {
    await waitFor(() => Bun.file(flag).size === 0 && swapper.exitCode === null, 10_000, "the swapper to start");
    // On a loaded machine the swapper may get no CPU for all of the first 200 copies: go on until
    // the swap has been met at the open at least once (the bound keeps a starved swapper finite).
    while ((copies < 200 || !skipped.has(MET)) && rounds < 1_000_000) {
      rounds++;
      rmSync(join(camp, "sub"), { recursive: true, force: true });
      const res = copyListed(p, camp, ["sub/app.env"], new Set());
      for (const k of res.skipped) skipped.add(k.why);
      if (!res.copied.includes("sub/app.env")) continue;
      copies++;
      const got = readFileSync(join(camp, "sub", "app.env"), "utf8");
      if (got !== "INSIDE\n") leaked.push(got);
    }
  } finally {
    swapper.kill("SIGKILL");
    await swapper.exited;
  }
  expect(swapper.signalCode).toBe("SIGKILL"); // it swapped all along, never died of an error
  expect(copies).toBeGreaterThanOrEqual(200);
  // The swap was met at the open itself, not only before it.
  expect(skipped).toContain(MET);
  expect(leaked).toEqual([]);
  // Thousands of rounds against a process that swaps without pause: minutes on a loaded machine.
}, 300_000);
