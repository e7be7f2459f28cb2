// Sentinel pieces the pass tests do not isolate: the guarded save (SEN-19), unexpected statuses
// (SEN-09), stabilization (SEN-15), retirement reasons (SEN-22), verified reaping (AWT-08).
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerAwaiter, reapAwaiters } from "../../src/awaiters/registry";
import type { Exec } from "../../src/exec";
import { applySettle } from "../../src/sentinel/apply";
import { buildOf, changeReason } from "../../src/sentinel/build";
import { stabilize } from "../../src/lifecycle/observe";
import { runPass } from "../../src/sentinel/pass";
import { loadTask } from "../../src/state/tasks";
import { execStub, psCall } from "../fakes/exec";
import { addAgent, createWorkspace, updateState } from "../fakes/herdr-control";
import { fakeClock } from "../deps";
import { T0, iso, taskId, world } from "../sentinel-kit";

const tmp = () => mkdtempSync(join(tmpdir(), "vx-parts-"));

describe("guarded save (SEN-19)", () => {
  test("a task that changed since the snapshot is not written and its pending wake is discarded", async () => {
    using w = world();
    const { paths } = w.addProject();
    const snapshot = w.writeTask(paths, { id: taskId() });
    // A command moved it on meanwhile (a land, a prompt): same status, newer updated_at.
    w.writeTask(paths, { ...snapshot, updated_at: iso(T0 + 5000) });
    const logs: string[] = [];
    const ok = await applySettle({ root: w.root, paths, now: T0 + 60_000, log: (m) => logs.push(m) }, snapshot, { type: "settle", to: "done", output: "stale read" });
    expect(ok).toBe(false);
    expect(loadTask(paths, snapshot.id)?.value).toMatchObject({ status: "running", updated_at: iso(T0 + 5000) });
    expect(readdirSync(paths.wakesDir)).toEqual([]);
    expect(logs).toEqual([]);
  });
});

describe("unexpected herdr status (SEN-09)", () => {
  test("skipped and logged once per distinct value", async () => {
    using w = world();
    const { paths } = w.addProject();
    const ws = createWorkspace(w.herdr);
    addAgent(w.herdr, ws.pane_id, { name: "vx-odd", kind: "claude", status: "working" });
    updateState(w.herdr, (s) => {
      const pane = s.panes.find((p) => p.agent?.name === "vx-odd");
      if (pane?.agent) (pane.agent as { status: string }).status = "thinking";
    });
    const t = w.writeTask(paths, { id: taskId(), herdr_agent_name: "vx-odd" });
    await runPass(w.ctx);
    await runPass(w.ctx);
    expect(w.logs.filter((l) => l.includes('unexpected herdr status "thinking"'))).toHaveLength(1);
    expect(loadTask(paths, t.id)?.value).toMatchObject({ status: "running" });
  });
});

describe("stabilization (SEN-15)", () => {
  const ops = () => ({ herdr: {} as never, clock: fakeClock(), env: {} });
  test("two identical consecutive reads: stable, with that read", async () => {
    const reads = ["b", "c", "c"];
    let n = 0;
    const r = await stabilize("a", async () => reads[n++], ops());
    expect(r).toEqual({ transcript: "c", stability: "stable" });
    expect(n).toBe(3);
  });
  test("never still: five reads in all, the last one kept, unstable", async () => {
    let n = 0;
    const r = await stabilize("r0", async () => `r${++n}`, ops());
    expect(n).toBe(4);
    expect(r).toEqual({ transcript: "r4", stability: "unstable" });
  });
  test("never readable: unreadable", async () => {
    expect(await stabilize(undefined, async () => undefined, ops())).toEqual({ transcript: undefined, stability: "unreadable" });
  });
  test("the gap between reads is the scaled 1 s", async () => {
    const o = ops();
    const start = o.clock.now();
    await stabilize("x", async () => "x", { ...o, env: { VX_TIME_SCALE: "0.5" } });
    expect(o.clock.now() - start).toBe(500);
  });
});

describe("binary-change reasons (SEN-22)", () => {
  test("replaced, repointed, gone", () => {
    const dir = tmp();
    const a = join(dir, "a");
    const b = join(dir, "b");
    writeFileSync(a, "one");
    writeFileSync(b, "two");
    const link = join(dir, "vx");
    symlinkSync(a, link);
    const build = buildOf(link, "1.0.0");
    if (!build) throw new Error("no build");
    expect(changeReason(build)).toBeUndefined();
    copyFileSync(b, a);
    expect(changeReason(build)).toBe(`${a} was replaced on disk`);
    rmSync(link);
    symlinkSync(b, link);
    expect(changeReason(build)).toBe(`${link} now points to ${b}, not ${a}`);
    rmSync(link);
    expect(changeReason(build)).toBe(`${link} is gone`);
  });
});

describe("verified reaping (AWT-08)", () => {
  /**
   * A stub that must see one `ps` of each pid in the table, in any order (the registry is read in
   * the order the file system lists it): pid -> "ppid command", or undefined for a gone process.
   */
  function psExec(table: Record<number, string | undefined>): Exec {
    return execStub().expectAnyOrder(Object.entries(table).map(([pid, row]) => psCall(Number(pid), row)));
  }
  const rec = (pid: number, owner: number, started: string, project = "/p") => ({
    pid,
    owner_pid: owner,
    project_path: project,
    project_key: "p-1",
    started_at: started,
  });

  test("orphans and older siblings are signalled; unverified, dead and malformed records are deleted unsignalled", async () => {
    const root = tmp();
    const dir = join(root, "sentinel-awaiters");
    mkdirSync(dir);
    registerAwaiter(dir, rec(101, 50, "2026-11-30T10:00:00.000Z")); // older sibling of 105
    registerAwaiter(dir, rec(102, 60, "2026-11-30T10:00:00.000Z")); // orphan: its parent is now 1
    registerAwaiter(dir, rec(103, 50, "2026-11-30T10:00:00.000Z", "/other")); // other project: kept
    registerAwaiter(dir, rec(104, 50, "2026-11-30T10:00:00.000Z")); // pid recycled by an editor
    registerAwaiter(dir, rec(106, 50, "2026-11-30T10:00:00.000Z")); // dead
    writeFileSync(join(dir, "107.json"), "{broken");
    writeFileSync(join(dir, "108.json"), JSON.stringify(rec(999, 50, "2026-11-30T10:00:00.000Z")));
    const exec = psExec({
      101: "50 /usr/local/bin/vx sentinel await",
      102: "1 /usr/local/bin/vx sentinel await",
      103: "50 vx sentinel await",
      104: "50 vim notes.txt",
      106: undefined,
    });
    const signalled: number[] = [];
    const self = rec(105, 50, "2026-11-30T10:05:00.000Z");
    registerAwaiter(dir, self);
    const n = await reapAwaiters(root, exec, self, { signal: (pid) => signalled.push(pid), rootOf: async () => root });
    expect(signalled.sort()).toEqual([101, 102]);
    expect(n).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(["101.json", "102.json", "103.json", "105.json"]);
  });

  test("an await not proven to run with this state root is never signalled; another root's record is deleted", async () => {
    const root = tmp();
    const dir = join(root, "sentinel-awaiters");
    mkdirSync(dir);
    registerAwaiter(dir, rec(301, 50, "2026-11-30T10:00:00.000Z")); // orphan of another HOME's root
    registerAwaiter(dir, rec(302, 50, "2026-11-30T10:00:00.000Z")); // orphan whose root is unreadable
    registerAwaiter(dir, rec(303, 50, "2026-11-30T10:00:00.000Z")); // orphan of ours
    const exec = psExec({ 301: "1 vx sentinel await", 302: "1 vx sentinel await", 303: "1 vx sentinel await" });
    const roots: Record<number, string | undefined> = { 301: join(tmp(), ".vexillum"), 302: undefined, 303: root };
    const signalled: number[] = [];
    const seams = { signal: (pid: number) => signalled.push(pid), rootOf: async (pid: number) => roots[pid] };
    expect(await reapAwaiters(root, exec, undefined, seams)).toBe(1);
    expect(signalled).toEqual([303]);
    expect(readdirSync(dir).sort()).toEqual(["302.json", "303.json"]);
  });

  test("the sentinel's reap (no self) spares siblings and signals only orphans", async () => {
    const root = tmp();
    const dir = join(root, "sentinel-awaiters");
    mkdirSync(dir);
    registerAwaiter(dir, rec(201, 50, "2026-11-30T10:00:00.000Z"));
    registerAwaiter(dir, rec(202, 50, "2026-11-30T10:01:00.000Z"));
    registerAwaiter(dir, rec(203, 70, "2026-11-30T10:01:00.000Z"));
    const exec = psExec({ 201: "50 vx sentinel await", 202: "50 vx sentinel await", 203: "1 vx sentinel await" });
    const signalled: number[] = [];
    expect(await reapAwaiters(root, exec, undefined, { signal: (pid) => signalled.push(pid), rootOf: async () => root })).toBe(1);
    expect(signalled).toEqual([203]);
  });
});
