// The landing forecast's git calls (TSK-11): none without a mission in flight, one per need
// otherwise, and an older git without `merge-tree --write-tree` answered "unknown", not an error.
import { describe, expect, test } from "bun:test";
import { changedFiles, divergence, mergeForecast, mergeForecasts } from "../../src/camps/git-batch";
import { divergedMissions, landingLine, landingReport, missionsInFlight } from "../../src/camps/overlap";
import { execStub } from "../fakes/exec";
import { taskFixture } from "../helpers";

const DIR = "/p";
const A = "aaaaaaaaaaaaaaaa";
const B = "bbbbbbbbbbbbbbbb";
const mission = (id: string) => ({ id, branch: `vexillum/${id}`, base: "main" });
const git = (...args: string[]) => ["git", "-C", DIR, ...args];
const refs = (...ids: string[]) => ids.map((id) => `refs/heads/vexillum/${id}`);
const OID = "9b4665c09aa5e2dfc24115d92ef0c88240be1ba8";
const [TIP_A, TIP_B, MAIN, MB] = ["a", "b", "c", "d"].map((c) => c.repeat(40)) as [string, string, string, string];
const revParse = (...branches: string[]) => git("rev-parse", ...branches.map((b) => `main...refs/heads/${b}`), "--");
const REV_PARSE = revParse(`vexillum/${A}`, `vexillum/${B}`);
const DIFF_TREE = git("diff-tree", "--stdin", "-r", "--name-only", "--no-renames", "--always", "-z");
const BATCH = git("merge-tree", "--stdin", "--write-tree", "--name-only", "--no-messages", "-z");
const batchOf = (...branches: string[]) => ({ stdin: branches.map((b) => `main ${b}\n`).join("") });
// What git 2.37 prints for an option it does not know.
const OLD_GIT = { code: 129, stdout: "", stderr: "error: unknown option `write-tree'\nusage: git merge-tree <base-tree> <branch1> <branch2>\n" };

describe("missionsInFlight", () => {
  test("leased missions with a branch and base only, in the order given", () => {
    const tasks = [
      taskFixture({ id: B, camp_branch: `vexillum/${B}`, camp_base: "main" }),
      taskFixture({ id: A, camp_branch: `vexillum/${A}`, camp_base: "main" }),
      taskFixture({ id: "cccccccccccccccc", kind: "scout", camp_branch: "vexillum/cccccccccccccccc", camp_base: "main" }),
      taskFixture({ id: "dddddddddddddddd" }),
      taskFixture({ id: "eeeeeeeeeeeeeeee", camp_branch: "vexillum/eeeeeeeeeeeeeeee", camp_base: "main" }),
    ];
    const leased = new Set([A, B, "cccccccccccccccc", "dddddddddddddddd"]);
    expect(missionsInFlight(tasks, leased)).toEqual([mission(B), mission(A)]);
    expect(missionsInFlight(tasks, undefined).map((m) => m.id)).toEqual([B, A, "eeeeeeeeeeeeeeee"]);
  });
});

describe("landingReport", () => {
  test("no mission: no git call at all", async () => {
    const exec = execStub();
    expect(await landingReport(DIR, [], exec)).toEqual([]);
    expect(exec.calls).toEqual([]);
  });

  test("no mission with commits: the one rev-parse, nothing more", async () => {
    // A sits at main's tip; B is behind it: both tips are their merge-base.
    const exec = execStub().expect(REV_PARSE, { stdout: `${MAIN}\n${MAIN}\n^${MAIN}\n${TIP_B}\n${MAIN}\n^${TIP_B}\n--\n` });
    expect(await landingReport(DIR, [mission(A), mission(B)], exec)).toEqual([]);
  });

  test("a branch gone under a leased camp: for-each-ref keeps the ones that exist, then rev-parse again", async () => {
    const exec = execStub()
      .expect(REV_PARSE, { code: 128, stderr: `fatal: bad revision 'main...refs/heads/vexillum/${A}'\n` })
      .expect(git("for-each-ref", "--format=%(refname)", "--no-merged=main", "--", ...refs(A, B)), { stdout: refs(B)[0] })
      .expect(revParse(`vexillum/${B}`), { stdout: `${TIP_B}\n${MAIN}\n^${MAIN}\n--\n` })
      .expect(DIFF_TREE, { stdout: `${TIP_B}\0y.ts\0` }, { stdin: `${TIP_B} ${MAIN}\n` });
    const rows = await landingReport(DIR, [mission(A), mission(B)], exec);
    expect(rows.map(landingLine)).toEqual(["    landing: fast-forwards main; merges cleanly; 1 file changed; no overlap"]);
  });

  test("one call per need, whatever the number: commits and merge-bases, all diffs, all merges", async () => {
    const exec = execStub()
      // A fast-forwards (its merge-base is main's tip); B diverged (merge-base MB).
      .expect(REV_PARSE, { stdout: `${TIP_A}\n${MAIN}\n^${MAIN}\n${TIP_B}\n${MAIN}\n^${MB}\n--\n` })
      .expectAnyOrder([
        { argv: DIFF_TREE, opts: { stdin: `${TIP_A} ${MAIN}\n${TIP_B} ${MB}\n` }, reply: { stdout: `${TIP_A}\0x.ts\0y.ts\0${TIP_B}\0y.ts\0` } },
        { argv: BATCH, opts: batchOf(`vexillum/${B}`), reply: { stdout: `0\0${OID}\0y.ts\0\0` } },
      ]);
    const rows = await landingReport(DIR, [mission(A), mission(B)], exec);
    expect(rows).toEqual([
      { ...mission(A), fastForward: true, merge: "clean", conflicts: [], files: ["x.ts", "y.ts"], overlaps: [B] },
      { ...mission(B), fastForward: false, merge: "conflict", conflicts: ["y.ts"], files: ["y.ts"], overlaps: [A] },
    ]);
    expect(rows.map(landingLine)).toEqual([
      `    landing: fast-forwards main; merges cleanly; 2 files changed; overlaps ${B}`,
      `    landing: diverged from main; would conflict; 1 file changed; overlaps ${A}`,
    ]);
  });

  test("a git without merge-tree --write-tree: merge unknown, the rest still told", async () => {
    const exec = execStub()
      .expect(revParse(`vexillum/${A}`), { stdout: `${TIP_A}\n${MAIN}\n^${MB}\n--\n` })
      .expectAnyOrder([
        { argv: DIFF_TREE, reply: { stdout: `${TIP_A}\0x.ts\0` } },
        { argv: BATCH, opts: batchOf(`vexillum/${A}`), reply: OLD_GIT },
      ])
      .expect(git("merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", "main", `vexillum/${A}`), OLD_GIT);
    const [row] = await landingReport(DIR, [mission(A)], exec);
    expect(landingLine(row!)).toBe("    landing: diverged from main; merge unknown; 1 file changed; no overlap");
  });
});

describe("divergence", () => {
  test("criss-cross merge-bases: not a fast-forward, the first base is the diff's", async () => {
    const exec = execStub().expect(revParse("x"), { stdout: `${TIP_A}\n${MAIN}\n^${MB}\n^${MAIN}\n--\n` });
    expect(await divergence(DIR, "main", ["x"], exec)).toEqual(new Map([["x", { ahead: true, tip: TIP_A, mergeBase: MB, fastForward: false }]]));
  });

  test("unrelated histories: no merge-base; unreadable output: undefined", async () => {
    let exec = execStub().expect(revParse("x"), { stdout: `${TIP_A}\n${MAIN}\n--\n` });
    expect(await divergence(DIR, "main", ["x"], exec)).toEqual(new Map([["x", { ahead: true, tip: TIP_A, mergeBase: undefined, fastForward: false }]]));
    exec = execStub().expect(revParse("x"), { stdout: "fatal\n" });
    expect(await divergence(DIR, "main", ["x"], exec)).toBeUndefined();
  });
});

describe("changedFiles", () => {
  test("headers split the answer, an empty diff and a repeated tip included", async () => {
    const exec = execStub().expect(DIFF_TREE, { stdout: `${TIP_A}\0${TIP_B}\0b.ts\0${TIP_B}\0b.ts\0` });
    const pairs = [
      { tip: TIP_A, mergeBase: MB },
      { tip: TIP_B, mergeBase: MB },
      { tip: TIP_B, mergeBase: MB },
    ];
    expect(await changedFiles(DIR, pairs, exec)).toEqual([[], ["b.ts"], ["b.ts"]]);
  });

  test("an answer that does not start with the first tip: undefined", async () => {
    const exec = execStub().expect(DIFF_TREE, { stdout: "x.ts\0" });
    expect(await changedFiles(DIR, [{ tip: TIP_A, mergeBase: MB }], exec)).toBeUndefined();
  });
});

describe("mergeForecast", () => {
  test.each([
    ["clean", { code: 0, stdout: `${OID}\0` }, { merge: "clean", conflicts: [] }],
    ["conflict", { code: 1, stdout: `${OID}\0a b.ts\0c.ts\0` }, { merge: "conflict", conflicts: ["a b.ts", "c.ts"] }],
    ["older git", OLD_GIT, { merge: "unknown", conflicts: [] }],
    ["bad revision", { code: 128, stdout: "", stderr: "fatal: not a valid object name" }, { merge: "unknown", conflicts: [] }],
  ])("%s", async (_, reply, want) => {
    const exec = execStub().expect(git("merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", "main", "x"), reply);
    expect(await mergeForecast(DIR, "main", "x", exec)).toEqual(want as never);
  });
});

describe("mergeForecasts", () => {
  test("one merge-tree --stdin for all: clean and conflicted answers in order", async () => {
    const exec = execStub().expect(BATCH, { stdout: `1\0${OID}\0\x000\0${OID}\0a b.ts\0c.ts\0\x001\0${OID}\0\0` }, batchOf("x", "y", "z"));
    expect(await mergeForecasts(DIR, "main", ["x", "y", "z"], exec)).toEqual([
      { merge: "clean", conflicts: [] },
      { merge: "conflict", conflicts: ["a b.ts", "c.ts"] },
      { merge: "clean", conflicts: [] },
    ]);
  });

  test.each([
    ["git without --stdin", OLD_GIT],
    ["a branch gone", { code: 1, stdout: `1\0${OID}\0\0`, stderr: "merge-tree: y - not something we can merge\n" }],
    ["output cut short", { code: 0, stdout: `1\0${OID}\0\0` }],
  ])("%s: undefined, so the caller asks branch by branch", async (_, reply) => {
    const exec = execStub().expect(BATCH, reply, batchOf("x", "y"));
    expect(await mergeForecasts(DIR, "main", ["x", "y"], exec)).toBeUndefined();
  });
});

describe("divergedMissions", () => {
  test("only missions on the landed base; those with commits that no longer fast-forward it", async () => {
    const other = { id: "cccccccccccccccc", branch: "vexillum/cccccccccccccccc", base: "dev" };
    // A diverged, B fast-forwards main.
    const exec = execStub().expect(REV_PARSE, { stdout: `${TIP_A}\n${MAIN}\n^${MB}\n${TIP_B}\n${MAIN}\n^${MAIN}\n--\n` });
    expect(await divergedMissions(DIR, "main", [mission(A), other, mission(B)], exec)).toEqual([mission(A)]);
    expect(await divergedMissions(DIR, "main", [other], execStub())).toEqual([]);
  });
});
