// MCH-08's two ends on real files: a relayed wake is committed here once, whatever is sent again, and deleted there
// only when the ack names that very wake.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyMissing, applyTaskLine, commitWakeLine, localProject, needsRelay, newMirrors, noteMirror, saveDispatchedMirror } from "../../src/machines/mirror";
import { answerAsk, applyAck } from "../../src/machines/relay-serve";
import { createExclusive } from "../../src/machines/relay";
import { projectPaths } from "../../src/state/paths";
import { ensureProjectRecord } from "../../src/state/project-record";
import { createTask, loadTask } from "../../src/state/tasks";
import { writeSoldierWake } from "../../src/wakes/queue";
import { taskFixture } from "../helpers";

const ID = "0123456789abcdef";
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function here(machine: string | undefined = "box") {
  const root = mkdtempSync(join(tmpdir(), "vx-relay-"));
  roots.push(root);
  const paths = projectPaths(root, join(root, "proj"));
  ensureProjectRecord(paths);
  return { root, paths, task: taskFixture({ id: ID, status: "running", machine, camp_path: undefined, camp_slot: undefined }) };
}

const wake = (at: string, status: "done" | "blocked" = "done") => ({ task_id: ID, kind: "mission", old_status: "running", new_status: status, detected_at: at });
const wakes = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => !n.startsWith(".") && n !== "forum") : []);

describe("the commander's side: a wake line committed once (MCH-08)", () => {
  test("committed through the journal, the mirror marked; the same wake again is acked and not written again", async () => {
    const { root, paths, task } = here();
    await createTask(paths, task);
    const w = wake("2026-12-06T01:00:00.000Z");
    const first = await commitWakeLine(root, "box", paths.key, w);
    const ack = { ack: paths.key, task_id: ID, detected_at: w.detected_at };
    expect(first).toEqual({ ack, fresh: { project: paths.project, wake: w as never } });
    expect(wakes(paths.wakesDir)).toEqual([`${ID}.json`]);
    expect(loadTask(paths, ID)?.value.relayed_wake_at).toBe(w.detected_at);
    // Delivered here (deleted), then sent again after a lost ack: acked, never a second wake.
    rmSync(join(paths.wakesDir, `${ID}.json`));
    expect(await commitWakeLine(root, "box", paths.key, w)).toEqual({ ack });
    expect(wakes(paths.wakesDir)).toEqual([]);
    // A newer transition is news.
    const newer = wake("2026-12-06T02:00:00.000Z", "blocked");
    expect(await commitWakeLine(root, "box", paths.key, newer)).toMatchObject({ ack: { detected_at: newer.detected_at }, fresh: { wake: { new_status: "blocked" } } });
    expect(JSON.parse(readFileSync(join(paths.wakesDir, `${ID}.json`), "utf8")).new_status).toBe("blocked");
  });

  test("kept there (no ack) for a task this root does not mirror from that machine, a bad key, or a bad wake", async () => {
    const { root, paths, task } = here("gpu");
    await createTask(paths, task);
    expect(await commitWakeLine(root, "box", paths.key, wake("2026-12-06T01:00:00.000Z"))).toBeUndefined();
    expect(await commitWakeLine(root, "gpu", "../x", wake("2026-12-06T01:00:00.000Z"))).toBeUndefined();
    expect(await commitWakeLine(root, "gpu", paths.key, { task_id: ID })).toBeUndefined();
    expect(wakes(paths.wakesDir)).toEqual([]);
    expect(localProject(root, "..")).toBeUndefined();
    expect(localProject(root, `${paths.key}\nsentinel: forged`)).toBeUndefined();
    expect(localProject(root, paths.key)?.stateDir).toBe(paths.stateDir);
  });

  test("a task line refreshes only the mirrored fields; the local ones stay", async () => {
    const { root, paths, task } = here();
    await createTask(paths, { ...task, remote_project: "/there/proj" });
    await applyTaskLine(root, "box", paths.key, { ...task, status: "done", output: "Fixed it.", camp_path: "/there/camp", machine: undefined, updated_at: "2026-12-06T03:00:00.000Z" });
    const after = loadTask(paths, ID)?.value;
    expect(after).toMatchObject({ status: "done", output: "Fixed it.", machine: "box", remote_project: "/there/proj", updated_at: "2026-12-06T03:00:00.000Z" });
    expect(after?.camp_path).toBeUndefined();
  });

  test("a task line of a task this root has no file of is adopted as a mirror; a local task of that id is never touched", async () => {
    const { root, paths, task } = here();
    await applyTaskLine(root, "box", paths.key, { ...task, machine: undefined, camp_path: "/there/camp", status: "running" }, "/there/proj");
    expect(loadTask(paths, ID)?.value).toMatchObject({ id: ID, machine: "box", remote_project: "/there/proj", status: "running" });
    expect(loadTask(paths, ID)?.value.camp_path).toBeUndefined();
    // The dispatch that started it, finishing late, puts its own fields on the adopted mirror; the relayed ones stay.
    await applyTaskLine(root, "box", paths.key, { ...task, status: "done", updated_at: "2026-12-06T04:00:00.000Z" }, "/there/proj");
    await saveDispatchedMirror(paths, { ...task, status: "running", commander_project: "/here/cmd", remote_project: "/there/proj" });
    expect(loadTask(paths, ID)?.value).toMatchObject({ status: "done", commander_project: "/here/cmd", machine: "box" });
    const local = here();
    await createTask(local.paths, { ...local.task, machine: undefined, status: "running" });
    await applyTaskLine(local.root, "box", local.paths.key, { ...local.task, status: "done" }, "/there/proj");
    expect(loadTask(local.paths, ID)?.value).toMatchObject({ status: "running" });
    expect(loadTask(local.paths, ID)?.value.machine).toBeUndefined();
  });

  test("the relay is needed while a task is in flight, or settled within the linger (a future time counts as long ago)", () => {
    const t = taskFixture({ id: ID, status: "done", updated_at: "2026-12-06T01:00:00.000Z" });
    const at = Date.parse("2026-12-06T01:00:00.000Z");
    expect(needsRelay({ ...t, status: "running" }, at + 3_600_000, 60_000)).toBe(true);
    expect(needsRelay(t, at + 30_000, 60_000)).toBe(true);
    expect(needsRelay(t, at + 90_000, 60_000)).toBe(false);
    expect(needsRelay(t, at - 30_000, 60_000)).toBe(false);
  });

  test("the pass's note of mirrors: the machines that need a relay, and each one's tasks in flight by project", () => {
    const m = newMirrors();
    const at = Date.parse("2026-12-06T01:00:00.000Z");
    const t = (id: string, status: "running" | "done", machine?: string) => taskFixture({ id, status, machine, updated_at: "2026-12-06T01:00:00.000Z" });
    noteMirror(m, "p-00000001", t(ID, "running", "box"), at, 60_000);
    noteMirror(m, "p-00000001", t("1111111111111111", "done", "gpu"), at + 30_000, 60_000);
    noteMirror(m, "p-00000002", t("2222222222222222", "done", "old"), at + 90_000, 60_000);
    noteMirror(m, "p-00000001", t("3333333333333333", "running"), at, 60_000);
    expect([...m.wanted].sort()).toEqual(["box", "gpu"]);
    expect(m.inFlight).toEqual(new Map([["box", new Map([["p-00000001", [ID]]])]]));
  });

  test("exclusive: one holder at a time, a failure does not stop the next", async () => {
    const exclusive = createExclusive();
    const order: string[] = [];
    const slow = exclusive(async () => {
      order.push("a+");
      await Bun.sleep(5);
      order.push("a-");
    });
    const failing = exclusive(async () => {
      order.push("b");
      throw new Error("x");
    });
    const last = exclusive(async () => order.push("c"));
    await Promise.all([slow, failing.catch(() => undefined), last]);
    expect(order).toEqual(["a+", "a-", "b", "c"]);
  });
});

describe("a task the machine no longer has (MCH-08)", () => {
  test("interrupted here once, with its note and a wake; a task it has, or one archived there, is not missing", async () => {
    const { root, paths, task } = here();
    await createTask(paths, task);
    const now = "2026-12-06T05:00:00.000Z";
    const lost = await applyMissing(root, "box", paths.key, [ID], now);
    expect(lost).toEqual([expect.objectContaining({ task_id: ID, old_status: "running", new_status: "interrupted", detected_at: now })]);
    expect(loadTask(paths, ID)?.value).toMatchObject({ status: "interrupted", output: expect.stringContaining("machine box no longer has this task") });
    expect(wakes(paths.wakesDir)).toEqual([`${ID}.json`]);
    expect(await applyMissing(root, "box", paths.key, [ID], now)).toEqual([]);
    expect(await applyMissing(root, "gpu", paths.key, [ID], now)).toEqual([]);

    const there = here();
    const kept = new Map([[there.paths.key, there.paths]]);
    await createTask(there.paths, { ...there.task, machine: undefined });
    const other = "fedcba9876543210";
    expect(answerAsk(kept, { ask: there.paths.key, ids: [ID, other, "../x"] })).toEqual({ t: "missing", key: there.paths.key, ids: [other] });
    mkdirSync(join(there.paths.tasksDir, "archive"), { recursive: true });
    writeFileSync(join(there.paths.tasksDir, "archive", `${other}.json`), "{}");
    expect(answerAsk(kept, { ask: there.paths.key, ids: [other] })).toEqual({ t: "missing", key: there.paths.key, ids: [] });
    expect(answerAsk(kept, { ask: "gone-key", ids: [ID] })).toEqual({ t: "missing", key: "gone-key", ids: [ID] });
  });
});

describe("the machine's side: an ack deletes only the wake it names (MCH-08)", () => {
  test("the same detected_at: deleted; an older ack: the newer wake stays", () => {
    const { root, paths } = here();
    const kept = new Map([[paths.key, paths]]);
    const sent = new Map<string, string>();
    writeSoldierWake(root, paths.wakesDir, wake("2026-12-06T02:00:00.000Z") as never);
    applyAck(kept, { ack: paths.key, task_id: ID, detected_at: "2026-12-06T01:00:00.000Z" }, sent);
    expect(wakes(paths.wakesDir)).toEqual([`${ID}.json`]);
    applyAck(kept, { ack: paths.key, task_id: ID, detected_at: "2026-12-06T02:00:00.000Z" }, sent);
    expect(wakes(paths.wakesDir)).toEqual([]);
    applyAck(kept, { ack: "nope", task_id: ID, detected_at: "2026-12-06T02:00:00.000Z" }, sent);
  });
});
