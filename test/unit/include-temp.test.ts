// STA-10's copy into a camp writes a temp file then renames it: that temp name must not be
// guessable, or anything that can write into the camp (a soldier) can squat it and make every
// later setup of the camp fail.
import { expect, test } from "bun:test";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { copyIncluded } from "../../src/camps/include";
import { realExec } from "../../src/exec";
import { commitIgnores, git, sandbox } from "../helpers";

test("names squatted in the camp ahead of time do not stop the copy", async () => {
  using s = sandbox();
  const p = s.project;
  commitIgnores(p, ".env\n");
  writeFileSync(join(p, ".env"), "A=1\n");
  writeFileSync(join(p, ".worktreeinclude"), ".env\n");
  const camp = join(s.home, "camp");
  git(p, "worktree", "add", "-q", "--detach", camp);
  // Every name made of this process's pid and a millisecond of the next second (the old, guessable
  // scheme), and every name the copy's own temp scheme would take with a predictable suffix, taken already.
  const now = Date.now();
  for (let t = now; t < now + 1_000; t++) writeFileSync(join(camp, `.vx-include-${process.pid}-${t}`), "");
  for (let n = 0; n < 256; n++) writeFileSync(join(camp, `..env.${n.toString(16).padStart(16, "0")}.tmp`), "");
  const res = await copyIncluded(p, camp, realExec);
  expect(res.copied).toEqual([".env"]);
  expect(readFileSync(join(camp, ".env"), "utf8")).toBe("A=1\n");
  expect(readdirSync(camp).filter((n) => n.endsWith(".tmp") && !/^\.\.env\.0{14}[0-9a-f]{2}\.tmp$/.test(n))).toEqual([]);
});
