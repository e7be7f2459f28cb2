import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { projectPaths, stateDirPaths } from "../../src/state/paths";
import type { ForumWake, SoldierWake, Task } from "../../src/state/schemas";
import { taskFixture } from "../helpers";
import { createTask } from "../../src/state/tasks";
import { type CurrencyContext, forumWakeCurrent, leasedIn, loadTaskIn, soldierWakeCurrent } from "../../src/wakes/currency";
import { type DeliverDeps, collectWakes, finishClaims, putBackAll } from "../../src/wakes/deliver";
import { claimWake, listWakeNames, writeForumWake, writeSoldierWake } from "../../src/wakes/queue";

const ID = "aaaaaaaaaaaaaaaa";
const ID2 = "bbbbbbbbbbbbbbbb";

function tmp(): string {
  return mkdtempSync(join(tmpdir(), "vx-deliver-"));
}

function task(over: Partial<Task> = {}): Task {
  return taskFixture({ id: ID, prompt: "p", status: "done", ...over });
}

function wake(over: Partial<SoldierWake> = {}): SoldierWake {
  return { task_id: ID, kind: "mission", old_status: "running", new_status: "done", detected_at: "2026-11-30T10:00:00.000Z", ...over };
}

const CAMP = { camp_path: "/c/1/repo", camp_branch: "vexillum/x", camp_base: "main" };

type Row = {
  name: string;
  task?: Task | "throws";
  wake?: Partial<SoldierWake>;
  leased?: string[] | "unreadable";
  landed?: boolean | "throws";
  current: boolean;
};

const rows: Row[] = [
  { name: "task file gone", task: undefined, current: false },
  { name: "status moved on", task: task({ status: "running" }), current: false },
  { name: "same status, no camp", task: task(), current: true },
  { name: "camp struck (not leased)", task: task({ ...CAMP }), leased: [ID2], landed: false, current: false },
  { name: "camp leased", task: task({ ...CAMP }), leased: [ID], landed: false, current: true },
  { name: "unreadable pool counts as current", task: task({ ...CAMP }), leased: "unreadable", landed: false, current: true },
  { name: "landed mission done wake", task: task({ ...CAMP }), leased: [ID], landed: true, current: false },
  { name: "landed test undeterminable", task: task({ ...CAMP }), leased: [ID], current: true },
  { name: "landed test fails", task: task({ ...CAMP }), leased: [ID], landed: "throws", current: true },
  {
    name: "scout done wake is never landed-tested",
    task: task({ ...CAMP, kind: "scout" }),
    wake: { kind: "scout", report_path: "/r.md" },
    leased: [ID],
    landed: true,
    current: true,
  },
  {
    name: "mission blocked wake is never landed-tested",
    task: task({ ...CAMP, status: "blocked" }),
    wake: { new_status: "blocked" },
    leased: [ID],
    landed: true,
    current: true,
  },
  { name: "corrupt task counts as current", task: "throws", current: true },
  { name: "landed recorded (TSK-12), even with the pool unreadable", task: task({ ...CAMP, landed_commit: "0123456789abcdef0123456789abcdef01234567" }), leased: "unreadable", current: false },
  { name: "struck recorded (TSK-12), a scout too", task: task({ ...CAMP, kind: "scout", struck_at: "2026-11-30T11:00:00.000Z" }), wake: { kind: "scout" }, leased: "unreadable", current: false },
  { name: "a mission waiting to land stays news", task: task({ ...CAMP }), leased: "unreadable", current: true },
];

function ctx(row: Row, asked: string[] = []): CurrencyContext {
  return {
    root: "/root",
    stateDir: "/root/projects/queue",
    loadTask: (dir) => {
      asked.push(dir);
      if (row.task === "throws") throw new Error("corrupt");
      return row.task;
    },
    leased: async () => (row.leased === "unreadable" ? undefined : new Set(row.leased ?? [])),
    isLanded: () => {
      if (row.landed === "throws") throw new Error("git failed");
      return row.landed;
    },
  };
}

describe("soldier currency filter (WAK-09)", () => {
  test.each(rows)("$name", async (row) => {
    expect(await soldierWakeCurrent(wake(row.wake), ctx(row))).toBe(row.current);
  });

  test("origin routes the lookup to the task's own project; no origin uses the queue's", async () => {
    const asked: string[] = [];
    const c = ctx({ name: "", task: task(), current: true }, asked);
    await soldierWakeCurrent(wake({ origin: "/src/other" }), c);
    await soldierWakeCurrent(wake(), c);
    expect(asked).toEqual([projectPaths("/root", "/src/other").stateDir, "/root/projects/queue"]);
  });
});

describe("forum currency filter (WAK-10)", () => {
  const fw: ForumWake = { session: "s1", file: "a.md", count: 7, ended: false, detected_at: "2026-11-30T10:00:00.000Z" };
  function inbox(messages: Record<string, string>): string {
    const dir = tmp();
    mkdirSync(join(dir, "s1"));
    for (const [name, text] of Object.entries(messages)) writeFileSync(join(dir, "s1", name), text);
    return dir;
  }
  const msg = (uid: string, acked?: string) => JSON.stringify({ uid, session: "s1", file: "a.md", text: "t", received_at: "2026-11-30T10:00:00.000Z", acked_at: acked });

  test("counts unacknowledged messages only", () => {
    const dir = inbox({ "u1.json": msg("u1"), "u2.json": msg("u2", "2026-11-30T11:00:00.000Z"), "u3.json": msg("u3"), ".u4.json.1.1.tmp": "x" });
    expect(forumWakeCurrent(fw, dir)).toBe(2);
  });
  test("all acknowledged or no inbox: 0 (drop)", () => {
    expect(forumWakeCurrent(fw, inbox({ "u1.json": msg("u1", "2026-11-30T11:00:00.000Z") }))).toBe(0);
    expect(forumWakeCurrent(fw, tmp())).toBe(0);
  });
  test("an unreadable inbox or message keeps the wake's own count", () => {
    const notDir = tmp();
    writeFileSync(join(notDir, "s1"), "a file where a directory should be");
    expect(forumWakeCurrent(fw, notDir)).toBe(7);
    expect(forumWakeCurrent(fw, inbox({ "u1.json": "{bad" }))).toBe(7);
  });
});

describe("real lookups", () => {
  test("pool leases, missing and corrupt pools", () => {
    const paths = stateDirPaths(tmp());
    expect(leasedIn(paths.stateDir)).toBeUndefined();
    mkdirSync(paths.campsDir, { recursive: true });
    writeFileSync(paths.poolFile, "{bad");
    expect(leasedIn(paths.stateDir)).toBeUndefined();
    writeFileSync(
      paths.poolFile,
      JSON.stringify({
        slots: [
          { number: 1, branch: "b1", leased_by: ID },
          { number: 2, branch: "b2" },
        ],
      }),
    );
    expect(leasedIn(paths.stateDir)).toEqual(new Set([ID]));
  });
  test("task lookup", async () => {
    const paths = stateDirPaths(tmp());
    expect(loadTaskIn(paths.stateDir, ID)).toBeUndefined();
    await createTask(paths, task());
    expect(loadTaskIn(paths.stateDir, ID)?.status).toBe("done");
  });
});

function queueFor(stateDir: string) {
  const p = stateDirPaths(stateDir);
  return { stateDir, wakesDir: p.wakesDir, forumWakesDir: p.forumWakesDir, forumInboxDir: p.forumInboxDir };
}

function deps(over: Partial<DeliverDeps> = {}): DeliverDeps {
  return {
    clock: { now: () => Date.now() },
    isLiveVx: () => false,
    currency: { root: tmp(), loadTask: loadTaskIn, leased: leasedIn, isLanded: () => undefined },
    pid: 4321,
    ...over,
  };
}

describe("collect, finish, put back", () => {
  async function seeded() {
    const paths = stateDirPaths(tmp());
    await createTask(paths, task());
    await createTask(paths, task({ id: ID2, status: "running" }));
    writeSoldierWake(paths.root, paths.wakesDir, wake({ detected_at: "2026-11-30T10:00:05.000Z" }));
    writeSoldierWake(paths.root, paths.wakesDir, wake({ task_id: ID2 })); // moved on: running now
    writeFileSync(join(paths.wakesDir, "cccccccccccccccc.json"), "{corrupt");
    mkdirSync(join(paths.forumInboxDir, "s1"), { recursive: true });
    writeFileSync(join(paths.forumInboxDir, "s1", "u1.json"), JSON.stringify({ uid: "u1" }));
    writeForumWake(paths, { session: "s1", file: "a.md", count: 9, ended: true, detectedAt: Date.parse("2026-11-30T10:00:00.000Z") });
    writeForumWake(paths, { session: "s2", file: "b.md", count: 1, ended: false, detectedAt: Date.parse("2026-11-30T10:00:00.000Z") });
    return paths;
  }

  test("current wakes are claimed; corrupt and stale ones are consumed silently", async () => {
    const paths = await seeded();
    const got = await collectWakes(queueFor(paths.stateDir), deps());
    expect(got.soldier.map((w) => w.task_id)).toEqual([ID]);
    expect(got.forum).toEqual([{ session: "s1", file: "a.md", count: 1, ended: true, detected_at: "2026-11-30T10:00:00.000Z" }]);
    expect(got.claims.map((c) => c.kind)).toEqual(["soldier", "forum"]);
    expect(readdirSync(paths.wakesDir).sort()).toEqual([`${ID}.json.claimed-4321-${got.claims[0].path.split("-").pop()}`, "forum"]);
    finishClaims(got.claims);
    expect(readdirSync(paths.wakesDir)).toEqual(["forum"]);
    expect(readdirSync(paths.forumWakesDir)).toEqual([]);
  });

  test("put back returns every claim to the queue", async () => {
    const paths = await seeded();
    const got = await collectWakes(queueFor(paths.stateDir), deps());
    putBackAll(got.claims);
    expect(listWakeNames(paths.wakesDir)).toEqual([`${ID}.json`]);
    expect(listWakeNames(paths.forumWakesDir)).toEqual(["s1.json"]);
  });

  test("a dead claim is recovered and delivered in the same pass; a live one is left alone", async () => {
    const paths = await seeded();
    const dead = claimWake(paths.wakesDir, `${ID}.json`, 99, Date.now() - 3 * 60 * 1000) as string;
    let got = await collectWakes(queueFor(paths.stateDir), deps({ isLiveVx: () => true }));
    expect(got.soldier).toEqual([]);
    expect(existsSync(dead)).toBe(true);
    putBackAll(got.claims);
    got = await collectWakes(queueFor(paths.stateDir), deps());
    expect(got.soldier.map((w) => w.task_id)).toEqual([ID]);
    expect(existsSync(dead)).toBe(false);
  });

  test("a failure mid-collect puts back the claims already taken", async () => {
    const paths = stateDirPaths(tmp());
    await createTask(paths, task());
    await createTask(paths, task({ id: ID2 }));
    writeSoldierWake(paths.root, paths.wakesDir, wake());
    writeSoldierWake(paths.root, paths.wakesDir, wake({ task_id: ID2 }));
    let calls = 0;
    const clock = {
      now: () => {
        // two dead-claim scans, one claim, then the failure
        if (++calls === 4) throw new Error("clock broke");
        return Date.now();
      },
    };
    await expect(collectWakes(queueFor(paths.stateDir), deps({ clock }))).rejects.toThrow("clock broke");
    expect(listWakeNames(paths.wakesDir)).toEqual([`${ID}.json`, `${ID2}.json`]);
    expect(readdirSync(paths.wakesDir).filter((n) => n.includes("claimed"))).toEqual([]);
  });

  test("origin wakes are filtered against the origin project's tasks", async () => {
    const root = tmp();
    const origin = "/src/soldier-project";
    const own = projectPaths(root, origin);
    await createTask(own, task());
    const commander = projectPaths(root, "/src/commander");
    writeSoldierWake(root, commander.wakesDir, wake({ origin }));
    const d = deps();
    d.currency.root = root;
    const got = await collectWakes(queueFor(commander.stateDir), d);
    expect(got.soldier.map((w) => w.origin)).toEqual([origin]);
  });
});
