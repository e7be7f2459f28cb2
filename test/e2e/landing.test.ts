// Landing many missions end to end (TSK-11, CMD-LAND-03): `vx status` forecasts each mission with
// commits (fast-forward, clean merge, overlapping missions) and `vx land` names the missions it
// left diverged, on real git camps leased through the real pool.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { releaseLease } from "../../src/camps/pool";
import { git } from "../helpers";
import { type Field, field, seedTask } from "./soldier-field";

function commit(dir: string, file: string, text: string): void {
  writeFileSync(join(dir, file), text);
  git(dir, "add", file);
  git(dir, "commit", "-q", "-m", `change ${file}`);
}

/** Status lines of a task, its landing line included (tasks seeded alike sort by id). */
function row(id: string, landing?: string): string[] {
  const line = `${id}  mission  done         vexillum/${id}  fix the login bug`;
  return landing === undefined ? [line] : [line, `    landing: ${landing}`];
}

/**
 * A committed project with four missions in flight: `a` and `b` both create `shared.txt` (and
 * `a` also `a.txt`), `c` only `c.txt`, `idle` has no commit yet.
 */
async function troop(f: Field) {
  git(f.project, "add", "-A");
  git(f.project, "commit", "-q", "-m", "vexillum scaffold");
  const [a, b, c, idle] = [(await seedTask(f)).task, (await seedTask(f)).task, (await seedTask(f)).task, (await seedTask(f)).task];
  commit(a.camp_path as string, "shared.txt", "from a\n");
  commit(a.camp_path as string, "a.txt", "a\n");
  commit(b.camp_path as string, "shared.txt", "from b\n");
  commit(c.camp_path as string, "c.txt", "c\n");
  return { a, b, c, idle, ids: [a.id, b.id, c.id, idle.id].sort() };
}

describe("landing many missions", () => {
  test("status forecasts each mission with commits; land names the missions it diverged; status then shows them", async () => {
    await using f = await field();
    const { a, b, c, ids } = await troop(f);
    const before: Record<string, string | undefined> = {
      [a.id]: `fast-forwards main; merges cleanly; 2 files changed; overlaps ${b.id}`,
      [b.id]: `fast-forwards main; merges cleanly; 1 file changed; overlaps ${a.id}`,
      [c.id]: "fast-forwards main; merges cleanly; 1 file changed; no overlap",
    };
    let r = await f.run(["status"]);
    expect(r).toEqual({ code: 0, stdout: `${ids.flatMap((id) => row(id, before[id])).join("\n")}\n`, stderr: "" });

    r = await f.run(["land", a.id]);
    expect(r.code).toBe(0);
    const diverged = [b.id, c.id].sort().join(", ");
    expect(r.stderr).toBe(`vx: now diverged from main: ${diverged}; vx land rebases a clean one itself, prompt only those it refuses (vx prompt <id> "rebase on main")\n`);
    expect(r.stdout).toStartWith(`landed: fast-forwarded ${f.project} to vexillum/${a.id}\n`);

    const after: Record<string, string | undefined> = {
      [b.id]: "diverged from main; would conflict; 1 file changed; no overlap",
      [c.id]: "diverged from main; merges cleanly; 1 file changed; no overlap",
    };
    r = await f.run(["status"]);
    // The landed mission leaves the default view (TSK-12).
    const shown = ids.filter((id) => id !== a.id).flatMap((id) => row(id, after[id]));
    expect(r).toEqual({ code: 0, stdout: `${[...shown, "1 landed, struck or failed task not shown - vx status --all shows them"].join("\n")}\n`, stderr: "" });
  });

  test("status --json: a landing entry per mission with commits, after the tasks; tasks untouched", async () => {
    await using f = await field();
    const { a, b, c, ids } = await troop(f);
    commit(f.project, "shared.txt", "from main\n");
    const doc = JSON.parse((await f.run(["status", "--json"])).stdout);
    expect(Object.keys(doc)).toEqual(["schema_version", "generated_at", "project_root", "tasks", "landing", "usage", "usage_total"]);
    expect(doc.tasks.map((t: { id: string }) => t.id)).toEqual(ids);
    expect(doc.tasks.find((t: { id: string }) => t.id === a.id)).toEqual(f.task(a.id));
    const entry = (id: string, over: Record<string, unknown>) => ({
      task_id: id,
      camp_branch: `vexillum/${id}`,
      camp_base: "main",
      fast_forward: false,
      merge: "conflict",
      conflicts: ["shared.txt"],
      ...over,
    });
    const want = [
      entry(a.id, { files: ["a.txt", "shared.txt"], overlaps: [b.id] }),
      entry(b.id, { files: ["shared.txt"], overlaps: [a.id] }),
      entry(c.id, { merge: "clean", conflicts: [], files: ["c.txt"], overlaps: [] }),
    ];
    expect(doc.landing).toEqual(want.sort((x, y) => (x.task_id < y.task_id ? -1 : 1)));
  });

  test("a mission whose camp is no longer leased, a scout and a mission without commits get no forecast", async () => {
    await using f = await field();
    git(f.project, "add", "-A");
    git(f.project, "commit", "-q", "-m", "vexillum scaffold");
    const struck = (await seedTask(f)).task;
    const scout = (await seedTask(f, { kind: "scout" })).task;
    const idle = (await seedTask(f)).task;
    const kept = (await seedTask(f)).task;
    commit(struck.camp_path as string, "x.txt", "x\n");
    commit(scout.camp_path as string, "x.txt", "y\n");
    commit(kept.camp_path as string, "x.txt", "z\n");
    await releaseLease(f.paths, struck.id);
    const r = await f.run(["status"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.filter((l) => l.startsWith("    landing: "))).toEqual(["    landing: fast-forwards main; merges cleanly; 1 file changed; no overlap"]);
    expect(lines[lines.findIndex((l) => l.startsWith(kept.id)) + 1]).toBe("    landing: fast-forwards main; merges cleanly; 1 file changed; no overlap");
    expect(lines.some((l) => l.startsWith(idle.id))).toBe(true);
    const doc = JSON.parse((await f.run(["status", "--json"])).stdout);
    expect(doc.landing.map((l: { task_id: string }) => l.task_id)).toEqual([kept.id]);
  });

  test("land with no other mission diverged prints no hint", async () => {
    await using f = await field();
    git(f.project, "add", "-A");
    git(f.project, "commit", "-q", "-m", "vexillum scaffold");
    const one = (await seedTask(f)).task;
    const other = (await seedTask(f)).task;
    commit(one.camp_path as string, "one.txt", "1\n");
    // `other` is built on top of `one`: it still fast-forwards main once `one` lands.
    git(other.camp_path as string, "merge", "-q", "--ff-only", `vexillum/${one.id}`);
    commit(other.camp_path as string, "two.txt", "2\n");
    const r = await f.run(["land", one.id]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect((await f.run(["status"])).stdout).toContain("    landing: fast-forwards main; merges cleanly; 1 file changed; no overlap\n");
  });
});
