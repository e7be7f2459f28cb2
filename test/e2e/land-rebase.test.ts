// Landing at scale (CMD-LAND-04..06): `vx land` rebases a diverged mission itself in its camp when the rebase is clean and the
// soldier idle, refuses (nothing changed) on a conflict or a working soldier, finishes or undoes a rebase a kill -9 cut short,
// and `vx land --all` lands every idle mission in the order that conflicts least. Real repositories, real camps from the pool.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { spawn } from "node:child_process";
import { VX_BIN, git, waitFor, writeExecutable } from "../helpers";
import { type Field, field, seedTask } from "./soldier-field";
import type { Task } from "../../src/state/schemas";
import { writeSoldierState } from "../../src/state/soldier-state";

function commit(dir: string, file: string, text: string): void {
  writeFileSync(join(dir, file), text);
  git(dir, "add", file);
  git(dir, "commit", "-q", "-m", `change ${file}`);
}

const head = (dir: string, rev = "HEAD") => git(dir, "rev-parse", rev).trim();
const taskFileText = (f: Field, id: string) => readFileSync(join(f.paths.tasksDir, `${id}.json`), "utf8");

async function committed(f: Field): Promise<void> {
  git(f.project, "add", "-A");
  git(f.project, "commit", "-q", "-m", "vexillum scaffold");
}

/** What must not move when a land is refused: the base, the branch, the camp's HEAD and files, the task file. */
function snapshot(f: Field, t: Task) {
  const camp = t.camp_path as string;
  return { base: head(f.project), branch: head(f.project, `refs/heads/${t.camp_branch}`), camp: head(camp), status: git(camp, "status", "--porcelain"), file: taskFileText(f, t.id) };
}

describe("land rebases a clean diverged mission itself", () => {
  test("disjoint missions: each lands in turn, the later ones rebased in their camps; landed tasks record their commit and leave status", async () => {
    await using f = await field();
    await committed(f);
    const ts = [(await seedTask(f)).task, (await seedTask(f)).task, (await seedTask(f)).task];
    for (const [i, t] of ts.entries()) commit(t.camp_path as string, `file${i}.txt`, `${i}\n`);
    for (const t of ts) {
      const r = await f.run(["land", t.id]);
      expect(r.code).toBe(0);
      expect(r.stdout).toStartWith(`landed: fast-forwarded ${f.project} to vexillum/${t.id}\n`);
      const saved = f.task(t.id);
      expect(saved.landed_commit).toBe(head(f.project));
      expect(saved.landed_at).toBeString();
      expect(saved.land_rebase_from).toBeUndefined();
    }
    // The first fast-forwarded; the other two were rebased by land, which said so.
    expect(git(f.project, "log", "--format=%s", "-4").trim().split("\n")).toEqual(["change file2.txt", "change file1.txt", "change file0.txt", "vexillum scaffold"]);
    for (let i = 0; i < 3; i++) expect(readFileSync(join(f.project, `file${i}.txt`), "utf8")).toBe(`${i}\n`);
    const status = await f.run(["status"]);
    expect(status.stdout).toBe("3 landed, struck or failed tasks not shown - vx status --all shows them\n");
    const all = (await f.run(["status", "--all"])).stdout.split("\n");
    for (const t of ts) {
      expect(all).toContain(`${t.id}  mission  landed       vexillum/${t.id}  fix the login bug`);
      expect(all).toContain(`    landed: ${f.task(t.id).landed_commit} at ${f.task(t.id).landed_at}`);
    }
  });

  test("a conflicting mission is refused with its files; the camp, branch, base and task file are as they were", async () => {
    await using f = await field();
    await committed(f);
    const a = (await seedTask(f)).task;
    const b = (await seedTask(f)).task;
    commit(a.camp_path as string, "same.txt", "from a\n");
    commit(b.camp_path as string, "same.txt", "from b\n");
    expect((await f.run(["land", a.id])).code).toBe(0);
    const before = snapshot(f, b);
    const r = await f.run(["land", b.id]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: vexillum/${b.id} is not a fast-forward of main and rebasing it would conflict in same.txt - have the soldier rebase vexillum/${b.id} onto main, then retry\n`,
    });
    expect(snapshot(f, b)).toEqual(before);
    expect(git(b.camp_path as string, "status").includes("rebase")).toBe(false);
  });

  test("a working soldier's diverged mission is refused and nothing changes", async () => {
    await using f = await field();
    await committed(f);
    const a = (await seedTask(f)).task;
    const b = (await seedTask(f, { status: "running" })).task;
    commit(a.camp_path as string, "a.txt", "a\n");
    commit(b.camp_path as string, "b.txt", "b\n");
    expect((await f.run(["land", a.id])).code).toBe(0);
    const before = snapshot(f, b);
    const r = await f.run(["land", b.id]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `vx: vexillum/${b.id} is not a fast-forward of main and task ${b.id} is running (its soldier is working) - land rebases a branch only under an idle soldier; wait for its wake, then retry\n`,
    );
    expect(snapshot(f, b)).toEqual(before);
  });

  test("a done task whose soldier reported itself working since (someone typed into its pane) is refused too, nothing changed", async () => {
    await using f = await field();
    await committed(f);
    const a = (await seedTask(f)).task;
    const b = (await seedTask(f)).task;
    commit(a.camp_path as string, "a.txt", "a\n");
    commit(b.camp_path as string, "b.txt", "b\n");
    expect((await f.run(["land", a.id])).code).toBe(0);
    writeSoldierState(f.paths, { task_id: b.id, state: "working", at: "2026-11-30T11:00:00.000Z", source: "test" });
    const before = snapshot(f, b);
    const r = await f.run(["land", b.id]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `vx: vexillum/${b.id} is not a fast-forward of main and task ${b.id}'s soldier reported itself working - land rebases a branch only under an idle soldier; wait for its wake, then retry\n`,
    );
    expect(snapshot(f, b)).toEqual(before);
    // Its turn over (idle), the same land goes through.
    writeSoldierState(f.paths, { task_id: b.id, state: "idle", at: "2026-11-30T11:01:00.000Z", source: "test" });
    expect((await f.run(["land", b.id])).code).toBe(0);
    expect(f.task(b.id).landed_commit).toBe(head(f.project));
  });

  test("kill -9 in the middle of land's rebase: nothing lost; the next land undoes the cut-short rebase and completes", async () => {
    await using f = await field();
    await committed(f);
    const a = (await seedTask(f)).task;
    const b = (await seedTask(f)).task;
    const camp = b.camp_path as string;
    commit(a.camp_path as string, "a.txt", "a\n");
    commit(camp, "b1.txt", "1\n");
    commit(camp, "b2.txt", "2\n");
    expect((await f.run(["land", a.id])).code).toBe(0);
    const branchBefore = head(f.project, `refs/heads/vexillum/${b.id}`);
    // The first commit the rebase replays runs this hook, which says where it is and waits: the test then kills it all.
    const mark = join(f.home, "rebase-reached");
    const hook = join(f.project, ".git", "hooks", "post-commit");
    writeExecutable(hook, `#!/bin/sh\necho "$$ $PPID" > "${mark}.tmp" && mv "${mark}.tmp" "${mark}"\nwhile :; do sleep 1; done\n`);
    const child = spawn(VX_BIN, ["land", b.id], { cwd: f.project, env: f.env, detached: true, stdio: "ignore" });
    const pids = (await waitFor(() => (existsSync(mark) ? readFileSync(mark, "utf8").trim() : undefined), 30_000, "the rebase's hook")).split(" ").map(Number);
    process.kill(-(child.pid as number), "SIGKILL");
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch (err) {
        // Already gone with the group, and reaped: the kill above did it.
        if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
      }
    }
    await waitFor(() => child.exitCode !== null || child.signalCode !== null, 10_000, "vx killed");
    rmSync(hook);
    // Cut short: a rebase stopped in the camp, the branch still at its own commits, the record of them in the task file.
    const rebaseDir = git(camp, "rev-parse", "--git-path", "rebase-merge").trim();
    expect(existsSync(isAbsolute(rebaseDir) ? rebaseDir : join(camp, rebaseDir))).toBe(true);
    expect(head(f.project, `refs/heads/vexillum/${b.id}`)).toBe(branchBefore);
    expect(f.task(b.id).land_rebase_from).toBe(branchBefore);
    expect(head(f.project)).toBe(f.task(a.id).landed_commit as string);

    const r = await f.run(["land", b.id]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`vx: an earlier land's rebase of vexillum/${b.id} was cut short; undone, vexillum/${b.id} is back at ${branchBefore.slice(0, 12)}\n`);
    expect(r.stdout).toStartWith(`landed: fast-forwarded ${f.project} to vexillum/${b.id}\n`);
    for (const file of ["a.txt", "b1.txt", "b2.txt"]) expect(existsSync(join(f.project, file))).toBe(true);
    expect(f.task(b.id).land_rebase_from).toBeUndefined();
    expect(f.task(b.id).landed_commit).toBe(head(f.project));
  });
});

describe("land --all", () => {
  test("disjoint, overlapping and conflicting missions: the clean ones land, it stops at the conflict and names it, a working soldier is left alone", async () => {
    await using f = await field();
    const lines = (first: string, last: string) => `${first}\n1\n2\n3\n4\n5\n6\n7\n8\n${last}\n`;
    writeFileSync(join(f.project, "shared.txt"), lines("top", "bottom"));
    writeFileSync(join(f.project, "x.txt"), lines("x", "y"));
    await committed(f);
    const seeded: Task[] = [];
    for (let i = 0; i < 5; i++) seeded.push((await seedTask(f)).task);
    const [solo, top, bottom, clash, extra] = seeded as [Task, Task, Task, Task, Task];
    const busy = (await seedTask(f, { status: "running" })).task;
    commit(solo.camp_path as string, "solo.txt", "solo\n");
    // top and bottom overlap (shared.txt) in different lines: both merge cleanly, one after the other; extra likewise with clash (x.txt).
    commit(top.camp_path as string, "shared.txt", lines("TOP", "bottom"));
    commit(bottom.camp_path as string, "shared.txt", lines("top", "BOTTOM"));
    commit(extra.camp_path as string, "x.txt", lines("x", "Y"));
    // clash changes shared.txt's top line too: it conflicts with top once top lands. It overlaps the most, so it comes last.
    commit(clash.camp_path as string, "shared.txt", lines("CLASH", "bottom"));
    commit(clash.camp_path as string, "x.txt", lines("X", "y"));
    commit(busy.camp_path as string, "busy.txt", "busy\n");
    const clashBefore = snapshot(f, clash);
    const r = await f.run(["land", "--all"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`vx: not landing ${busy.id}: still working\n`);
    // solo (no overlap), extra (one overlap), then top and bottom (two each, TSK-08 order: by id), then clash.
    const middle = [top.id, bottom.id].sort();
    expect(r.stdout).toEndWith(`land: 4 of 5 landed: ${[solo.id, extra.id, ...middle].join(", ")}\n`);
    expect(r.stderr).toEndWith(
      `vx: land stopped at task ${clash.id}: vexillum/${clash.id} is not a fast-forward of main and rebasing it would conflict in shared.txt - have the soldier rebase vexillum/${clash.id} onto main, then retry\n`,
    );
    expect(readFileSync(join(f.project, "shared.txt"), "utf8")).toBe(lines("TOP", "BOTTOM"));
    expect(readFileSync(join(f.project, "x.txt"), "utf8")).toBe(lines("x", "Y"));
    for (const t of [solo, top, bottom, extra]) expect(f.task(t.id).landed_commit).toBeString();
    for (const t of [clash, busy]) expect(f.task(t.id).landed_commit).toBeUndefined();
    // The stopped one's branch, camp and task file as they were; only the base moved.
    expect({ ...snapshot(f, clash), base: clashBefore.base }).toEqual(clashBefore);
  });

  test("a list of ids lands those only, in the order that conflicts least", async () => {
    await using f = await field();
    await committed(f);
    const ts = [(await seedTask(f)).task, (await seedTask(f)).task, (await seedTask(f)).task];
    for (const [i, t] of ts.entries()) commit(t.camp_path as string, `f${i}.txt`, `${i}\n`);
    const r = await f.run(["land", ts[0]!.id, ts[2]!.id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("land: 2 of 2 landed: ");
    expect(f.task(ts[1]!.id).landed_commit).toBeUndefined();
    expect(existsSync(join(f.project, "f1.txt"))).toBe(false);
    expect(r.stderr).toContain(`vx: now diverged from main: ${ts[1]!.id}`);
  });
});
