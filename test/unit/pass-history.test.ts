// A project's history, left unread by the pass while unchanged (SEN-04, SEN-20; sentinel/history.ts): reads counted, not timed.
import { afterAll, afterEach, describe, expect, spyOn, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import * as files from "../../src/state/files";
import { acquireCamp } from "../../src/camps/pool";
import { realExec } from "../../src/exec";
import { runPass } from "../../src/sentinel/pass";
import { loadTask, taskPath } from "../../src/state/tasks";
import { renderState } from "../../src/state/record";
import { GUARDS } from "../../src/time";
import { addAgent, createWorkspace } from "../fakes/herdr-control";
import { taskId, world } from "../sentinel-kit";

const reads = spyOn(files, "readStateText");
afterEach(() => reads.mockClear());
afterAll(() => reads.mockRestore());

/** A world whose file clock (how long a task file stayed unchanged) moves only when told. */
function historyWorld() {
  const w = world();
  let t = 0;
  w.ctx.fileClock = { monotonic: () => t };
  return Object.assign(w, {
    /** One pass, then the file clock moves past the settle margin: the task files `run` read, by id, each once. */
    async pass(): Promise<string[]> {
      reads.mockClear();
      await runPass(w.ctx);
      t += GUARDS.historySettled;
      // A file the pass then updates is read again by the guarded save: counted once.
      const ids = reads.mock.calls
        .map(([p]) =>
          p
            .split("/")
            .pop()!
            .replace(/\.json$/, ""),
        )
        .filter((n) => /^[0-9a-f]{16}$/.test(n));
      return [...new Set(ids)].sort();
    },
  });
}

/** A failed task whose file the pass has come to leave unread. */
async function settledFailure(w: ReturnType<typeof historyWorld>) {
  const { paths } = w.addProject();
  const id = w.writeTask(paths, { id: taskId(), status: "failed" }).id;
  await w.pass();
  await w.pass();
  expect(await w.pass()).toEqual([]);
  return { paths, id };
}

describe("a project's history in the pass", () => {
  test("finished tasks seen unchanged for the settle margin are left unread; running ones, mirrored ones and leased reopen candidates are read every pass", async () => {
    using w = historyWorld();
    const { dir, paths } = w.addProject();
    createWorkspace(w.herdr);
    const failed = w.writeTask(paths, { id: taskId(), status: "failed", herdr_agent_name: "vx-f" }).id;
    const shipped = w.writeTask(paths, { id: taskId(), status: "shipped", herdr_agent_name: "vx-s" }).id;
    const running = w.writeTask(paths, { id: taskId(), herdr_agent_name: "vx-r" }).id;
    const mirrored = w.writeTask(paths, { id: taskId(), status: "done", machine: "box" }).id;
    const leased = taskId();
    await acquireCamp(paths, { project: dir, taskId: leased, base: "main", exec: realExec });
    w.writeTask(paths, { id: leased, status: "done", herdr_agent_name: "vx-l" });

    const all = [failed, shipped, running, mirrored, leased].sort();
    // Seen, then read again once it has stayed as it was: only that read is trusted.
    expect(await w.pass()).toEqual(all);
    expect(await w.pass()).toEqual(all);
    const live = [running, mirrored, leased].sort();
    expect(await w.pass()).toEqual(live);
    expect(await w.pass()).toEqual(live);
  });

  test("a finished task read again when its file changes, or when its camp is leased, is judged as before", async () => {
    using w = historyWorld();
    const { dir, paths } = w.addProject();
    const ws = createWorkspace(w.herdr);
    const back = w.writeTask(paths, { id: taskId(), status: "failed", herdr_agent_name: "vx-back" }).id;
    const camp = taskId();
    w.writeTask(paths, { id: camp, status: "shipped", herdr_agent_name: "vx-camp", herdr_pane_id: ws.pane_id });
    await w.pass();
    await w.pass();
    expect(await w.pass()).toEqual([]);

    // Rewritten as every state write is (temp file + rename): read and judged (SEN-08's not-found mark).
    const t = loadTask(paths, back)!.value;
    files.writeAtomic(taskPath(paths, back), renderState({ ...t, status: "running" }));
    expect(await w.pass()).toEqual([back]);
    expect(loadTask(paths, back)?.value.agent_not_found_since).toBe(new Date(w.clock.now()).toISOString());

    // Its file unchanged, its camp leased again: a reopen candidate, read, and reopened when its soldier works (SEN-20).
    await acquireCamp(paths, { project: dir, taskId: camp, base: "main", exec: realExec });
    addAgent(w.herdr, ws.pane_id, { name: "vx-camp", kind: "claude", status: "working" });
    expect(await w.pass()).toEqual([back, camp].sort());
    expect(loadTask(paths, camp)?.value.status).toBe("running");
  });

  test("an unreadable camp pool: a reopen candidate is read every pass (it cannot be ruled out)", async () => {
    using w = historyWorld();
    const { paths } = w.addProject();
    const id = w.writeTask(paths, { id: taskId(), status: "done", herdr_agent_name: "vx-d" }).id;
    mkdirSync(dirname(paths.poolFile), { recursive: true });
    writeFileSync(paths.poolFile, "{not json");
    for (let i = 0; i < 4; i++) expect(await w.pass()).toEqual([id]);
  });

  test("a file rewritten in place (same inode) is read again; one seen for less than the settle margin is read every pass", async () => {
    using w = historyWorld();
    const { paths, id } = await settledFailure(w);
    writeFileSync(taskPath(paths, id), renderState({ ...loadTask(paths, id)!.value, status: "interrupted" }));
    expect(await w.pass()).toEqual([id]);

    using still = world();
    const other = still.addProject();
    still.ctx.fileClock = { monotonic: () => 0 };
    const held = still.writeTask(other.paths, { id: taskId(), status: "failed" }).id;
    for (let i = 0; i < 3; i++) {
      reads.mockClear();
      await runPass(still.ctx);
      expect(reads.mock.calls.filter(([p]) => p.endsWith(`${held}.json`))).toHaveLength(1);
    }
  });

  test("a finished task's file removed or archived is forgotten; another put in its place is read", async () => {
    using w = historyWorld();
    const { paths, id } = await settledFailure(w);
    files.removeFile(taskPath(paths, id));
    expect(await w.pass()).toEqual([]);
    expect(w.ctx.memory.history.size).toBe(0);
    w.writeTask(paths, { id, status: "running", herdr_agent_name: "vx-again" });
    expect(await w.pass()).toEqual([id]);
  });
});
