import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { realExec } from "../../src/exec";
import { isLiveVx } from "../../src/procs";
import { execed } from "../exec-wait";
import { stateDirPaths } from "../../src/state/paths";
import type { SoldierWake, TaskStatus } from "../../src/state/schemas";
import { scaled } from "../../src/time";
import {
  claimWake,
  claimedWakeName,
  commitPendingWake,
  discardPendingWake,
  listWakeNames,
  putBackClaim,
  recoverDeadClaims,
  recoverPendingWakes,
  writeForumWake,
  writePendingWake,
  writeSoldierWake,
} from "../../src/wakes/queue";

const ID_A = "aaaaaaaaaaaaaaaa";
const ID_B = "bbbbbbbbbbbbbbbb";
const FIXTURE = resolve(import.meta.dir, "..", "fixtures", "claim-wake.ts");

function tmp(): string {
  return mkdtempSync(join(tmpdir(), "vx-wakes-"));
}

function wake(over: Partial<SoldierWake> = {}): SoldierWake {
  return {
    task_id: ID_A,
    kind: "mission",
    old_status: "running",
    new_status: "done",
    detected_at: "2026-11-30T10:00:00.000Z",
    ...over,
  };
}

function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** Sets a file's mtime `ageMs` into the past, instead of waiting for it to age. */
function age(path: string, ageMs: number): void {
  const t = (Date.now() - ageMs) / 1000;
  utimesSync(path, t, t);
}

describe("listing", () => {
  test("only names ending in .json; directories, pending, temp and claimed files skipped", () => {
    const dir = tmp();
    mkdirSync(join(dir, "forum"));
    mkdirSync(join(dir, "odd.json"));
    for (const n of [`${ID_B}.json`, `${ID_A}.json`, `.${ID_A}.pending`, `.x.json.1.2.tmp`, `${ID_A}.json.claimed-1-1`]) {
      writeFileSync(join(dir, n), "{}");
    }
    expect(listWakeNames(dir)).toEqual([`${ID_A}.json`, `${ID_B}.json`]);
    expect(listWakeNames(join(dir, "missing"))).toEqual([]);
  });
});

describe("claims", () => {
  test("exactly one of 8 racing processes wins the claim", async () => {
    const dir = tmp();
    const path = writeSoldierWake(dir, dir, wake());
    const procs = Array.from({ length: 8 }, () => Bun.spawn([process.execPath, FIXTURE, dir, `${ID_A}.json`], { stdin: "pipe", stdout: "pipe", stderr: "inherit" }));
    const readers = procs.map((p) => p.stdout.getReader());
    const decoder = new TextDecoder();
    // Wait until every racer is loaded and blocked on stdin, then release them together.
    for (const r of readers) expect(decoder.decode((await r.read()).value)).toBe("ready\n");
    for (const p of procs) {
      p.stdin.write("go\n");
      p.stdin.end();
    }
    const outputs: string[] = [];
    for (const [i, r] of readers.entries()) {
      let text = "";
      for (let chunk = await r.read(); !chunk.done; chunk = await r.read()) text += decoder.decode(chunk.value);
      expect(await procs[i].exited).toBe(0);
      outputs.push(text.trim());
    }
    const winners = outputs.filter((o) => o.startsWith("won "));
    expect(winners).toHaveLength(1);
    expect(outputs.filter((o) => o === "lost")).toHaveLength(7);
    const claimed = winners[0].slice(4);
    const winnerPid = procs[outputs.indexOf(winners[0])].pid;
    expect(claimed).toBe(join(dir, `${ID_A}.json.claimed-${winnerPid}-1`));
    expect(existsSync(path)).toBe(false);
    expect(readJson(claimed).task_id).toBe(ID_A);
  });

  test("a claim stamps mtime with now and uses a per-process sequence", () => {
    const dir = tmp();
    writeSoldierWake(dir, dir, wake());
    writeSoldierWake(dir, dir, wake({ task_id: ID_B }));
    const now = Date.parse("2030-01-02T03:04:05.000Z");
    const a = claimWake(dir, `${ID_A}.json`, 4242, now);
    const b = claimWake(dir, `${ID_B}.json`, 4242, now);
    expect(a).toMatch(new RegExp(`/${ID_A}\\.json\\.claimed-4242-(\\d+)$`));
    expect(b).toMatch(new RegExp(`/${ID_B}\\.json\\.claimed-4242-(\\d+)$`));
    const seq = (p: string | undefined) => Number(p?.split("-").pop());
    expect(seq(b)).toBe(seq(a) + 1);
    expect(statSync(a as string).mtimeMs).toBe(now);
    expect(claimedWakeName(a as string)).toBe(`${ID_A}.json`);
  });

  test("a wake that is gone or already claimed cannot be claimed", () => {
    const dir = tmp();
    writeSoldierWake(dir, dir, wake());
    expect(claimWake(dir, `${ID_A}.json`)).toBeDefined();
    expect(claimWake(dir, `${ID_A}.json`)).toBeUndefined();
    expect(claimWake(join(dir, "missing"), `${ID_A}.json`)).toBeUndefined();
  });

  test("put back renames the claim to its wake name", () => {
    const dir = tmp();
    writeSoldierWake(dir, dir, wake({ note: "original" }));
    const claimed = claimWake(dir, `${ID_A}.json`) as string;
    expect(putBackClaim(claimed)).toBe("back");
    expect(readdirSync(dir)).toEqual([`${ID_A}.json`]);
    expect(readJson(join(dir, `${ID_A}.json`)).note).toBe("original");
    expect(putBackClaim(claimed)).toBe("gone");
  });

  test("put back when a newer wake exists deletes the claimed copy", () => {
    const dir = tmp();
    writeSoldierWake(dir, dir, wake({ note: "old" }));
    const claimed = claimWake(dir, `${ID_A}.json`) as string;
    writeSoldierWake(dir, dir, wake({ note: "new", new_status: "blocked" }));
    expect(putBackClaim(claimed)).toBe("superseded");
    expect(readdirSync(dir)).toEqual([`${ID_A}.json`]);
    expect(readJson(join(dir, `${ID_A}.json`)).note).toBe("new");
  });
});

describe("dead-claim recovery", () => {
  const OLD = 2 * 60 * 1000 + 1000;
  const rows: { name: string; ageMs: number; live: boolean; back: boolean }[] = [
    { name: "old claim, dead owner: back", ageMs: OLD, live: false, back: true },
    { name: "old claim, live vx owner: kept", ageMs: OLD, live: true, back: false },
    { name: "fresh claim, dead owner: kept", ageMs: 1000, live: false, back: false },
    { name: "exactly two minutes, dead owner: back", ageMs: 2 * 60 * 1000, live: false, back: true },
    // TIME-02: claimed before the wall clock stepped back an hour; its owner is not waited on for that hour.
    { name: "claimed in the future, dead owner: back", ageMs: -3_600_000, live: false, back: true },
    { name: "claimed in the future, live vx owner: kept", ageMs: -3_600_000, live: true, back: false },
  ];
  test.each(rows)("$name", async ({ ageMs, live, back }) => {
    const dir = tmp();
    writeSoldierWake(dir, dir, wake());
    const now = Date.now();
    const claimed = claimWake(dir, `${ID_A}.json`, 777, now) as string;
    const t = (now - ageMs) / 1000;
    utimesSync(claimed, t, t);
    const asked: number[] = [];
    const got = await recoverDeadClaims(dir, {
      now,
      isLiveVx: (pid) => {
        asked.push(pid);
        return live;
      },
    });
    expect(got).toEqual(back ? [`${ID_A}.json`] : []);
    expect(existsSync(join(dir, `${ID_A}.json`))).toBe(back);
    expect(existsSync(claimed)).toBe(!back);
    expect(readdirSync(dir)).toHaveLength(1);
    if (ageMs >= scaled("deadClaim")) expect(asked).toEqual([777]);
  });

  test("a newer wake wins over a recovered dead claim", async () => {
    const dir = tmp();
    writeSoldierWake(dir, dir, wake({ note: "old" }));
    const claimed = claimWake(dir, `${ID_A}.json`, 777) as string;
    age(claimed, OLD);
    writeSoldierWake(dir, dir, wake({ note: "new" }));
    await recoverDeadClaims(dir, { now: Date.now(), isLiveVx: () => false });
    expect(readdirSync(dir)).toEqual([`${ID_A}.json`]);
    expect(readJson(join(dir, `${ID_A}.json`)).note).toBe("new");
  });

  test("real processes: a live non-vx pid and a dead pid are put back, a live vx pid is kept", async () => {
    const dir = tmp();
    const ids = ["1111111111111111", "2222222222222222", "3333333333333333"];
    for (const id of ids) writeSoldierWake(dir, dir, wake({ task_id: id }));
    const exited = Bun.spawn(["true"]);
    await exited.exited;
    const vxLike = Bun.spawn(["sleep", "60"], { argv0: "/usr/local/bin/vx" });
    try {
      // Until the child has exec'd, its argv is still the test runner's.
      await execed(vxLike.pid, "sleep");
      const owners = [process.pid, exited.pid, vxLike.pid];
      for (const [i, id] of ids.entries()) age(claimWake(dir, `${id}.json`, owners[i]) as string, OLD);
      const got = await recoverDeadClaims(dir, { now: Date.now(), isLiveVx: (pid) => isLiveVx(pid, realExec) });
      expect(got.sort()).toEqual([`${ids[0]}.json`, `${ids[1]}.json`]);
      expect(listWakeNames(dir)).toEqual([`${ids[0]}.json`, `${ids[1]}.json`]);
    } finally {
      vxLike.kill();
      await vxLike.exited;
    }
  });
});

describe("pending wakes (crash safety)", () => {
  test("a pending wake is invisible until committed; commit replaces an undelivered wake", () => {
    const dir = tmp();
    writeSoldierWake(dir, dir, wake({ new_status: "blocked" }));
    const pending = writePendingWake(dir, dir, wake({ new_status: "done", note: "newest" }));
    expect(pending).toBe(join(dir, `.${ID_A}.pending`));
    expect(readJson(join(dir, `${ID_A}.json`)).new_status).toBe("blocked");
    expect(commitPendingWake(dir, ID_A)).toBe(true);
    expect(readdirSync(dir)).toEqual([`${ID_A}.json`]);
    expect(readJson(join(dir, `${ID_A}.json`))).toEqual({ ...wake({ note: "newest" }) });
    expect(commitPendingWake(dir, ID_A)).toBe(false);
  });

  test("discard removes the pending wake after a refused save", () => {
    const dir = tmp();
    writePendingWake(dir, dir, wake());
    discardPendingWake(dir, ID_A);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("recovery commits when the saved status matches, deletes otherwise", () => {
    const dir = tmp();
    const ID_C = "cccccccccccccccc";
    const ID_D = "dddddddddddddddd";
    writePendingWake(dir, dir, wake({ task_id: ID_A, new_status: "done" }));
    writePendingWake(dir, dir, wake({ task_id: ID_B, new_status: "blocked" }));
    writePendingWake(dir, dir, wake({ task_id: ID_C }));
    writeFileSync(join(dir, `.${ID_D}.pending`), "{not json");
    const saved: Record<string, TaskStatus> = { [ID_A]: "done", [ID_B]: "running" };
    const got = recoverPendingWakes(dir, (w) => saved[w.task_id]);
    expect(got.committed).toEqual([ID_A]);
    expect(got.discarded.sort()).toEqual([ID_B, ID_C, ID_D]);
    expect(readdirSync(dir)).toEqual([`${ID_A}.json`]);
  });

  test("a status lookup that fails leaves the pending wake for the next pass", () => {
    const dir = tmp();
    writePendingWake(dir, dir, wake());
    const got = recoverPendingWakes(dir, () => {
      throw new Error("corrupt task");
    });
    expect(got.failed).toEqual([{ taskId: ID_A, error: "corrupt task" }]);
    expect(readdirSync(dir)).toEqual([`.${ID_A}.pending`]);
  });

  test("an invalid wake is refused before anything is written", () => {
    const dir = tmp();
    expect(() => writePendingWake(dir, dir, wake({ task_id: "../../etc" }))).toThrow("invalid soldier wake");
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("coalescing", () => {
  test("one file per task, newest wins, keys in schema order", () => {
    const dir = tmp();
    writeSoldierWake(dir, dir, wake({ new_status: "blocked", detected_at: "2026-11-30T10:00:00.000Z" }));
    writeSoldierWake(dir, dir, wake({ old_status: "blocked", new_status: "done", report_path: "/r.md", origin: "/p", note: "n" }));
    expect(listWakeNames(dir)).toEqual([`${ID_A}.json`]);
    const text = readFileSync(join(dir, `${ID_A}.json`), "utf8");
    expect(Object.keys(JSON.parse(text))).toEqual(["task_id", "kind", "old_status", "new_status", "detected_at", "report_path", "origin", "note"]);
    expect(JSON.parse(text).old_status).toBe("blocked");
    expect(text.endsWith("}\n")).toBe(true);
  });
});

describe("forum wakes", () => {
  const T1 = Date.parse("2026-11-30T10:00:00.000Z");
  const T2 = Date.parse("2026-11-30T11:00:00.000Z");

  test("merge keeps the earliest detected_at, ORs ended, stores its own count", () => {
    const paths = stateDirPaths(tmp());
    const path = join(paths.forumWakesDir, "s1.json");
    writeForumWake(paths, { session: "s1", file: "a.md", count: 1, ended: true, detectedAt: T2 });
    writeForumWake(paths, { session: "s1", file: "a.md", count: 3, ended: false, detectedAt: T1 });
    expect(readJson(path)).toEqual({ session: "s1", file: "a.md", count: 3, ended: true, detected_at: "2026-11-30T10:00:00.000Z" });
    writeForumWake(paths, { session: "s1", file: "a.md", count: 2, ended: false, detectedAt: T2 });
    expect(readJson(path)).toEqual({ session: "s1", file: "a.md", count: 2, ended: true, detected_at: "2026-11-30T10:00:00.000Z" });
    expect(listWakeNames(paths.forumWakesDir)).toEqual(["s1.json"]);
  });

  test("a corrupt existing forum wake is replaced", () => {
    const paths = stateDirPaths(tmp());
    mkdirSync(paths.forumWakesDir, { recursive: true });
    writeFileSync(join(paths.forumWakesDir, "s1.json"), "{oops");
    const got = writeForumWake(paths, { session: "s1", file: "a.md", count: 1, ended: false, detectedAt: T2 });
    expect(got.detected_at).toBe("2026-11-30T11:00:00.000Z");
    expect(readJson(join(paths.forumWakesDir, "s1.json")).count).toBe(1);
  });

  test.each(["", ".", "..", "a/b", "../x"])("session %p is refused", (session) => {
    const paths = stateDirPaths(tmp());
    expect(() => writeForumWake(paths, { session, file: "f", count: 1, ended: false, detectedAt: T1 })).toThrow("invalid forum session");
    expect(existsSync(paths.forumWakesDir)).toBe(false);
  });
});
