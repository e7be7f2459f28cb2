// A project's history, left unread by the pass while unchanged (SEN-04, SEN-20; sentinel/history.ts): reads counted, not timed.
import { afterAll, afterEach, describe, expect, spyOn, test } from "bun:test";
import * as files from "../../src/state/files";
import { acquireCamp } from "../../src/camps/pool";
import { realExec } from "../../src/exec";
import { runPass } from "../../src/sentinel/pass";
import { loadTask, taskPath } from "../../src/state/tasks";
import { renderState } from "../../src/state/record";
import { addAgent, createWorkspace } from "../fakes/herdr-control";
import { taskId, world } from "../sentinel-kit";

const reads = spyOn(files, "readStateText");
afterEach(() => reads.mockClear());
afterAll(() => reads.mockRestore());

/** The task files `run` read, by task id (a file the pass then updates is read again by the guarded save). */
async function readIn(run: () => Promise<unknown>): Promise<string[]> {
  reads.mockClear();
  await run();
  const ids = reads.mock.calls
    .map(([p]) =>
      p
        .split("/")
        .pop()!
        .replace(/\.json$/, ""),
    )
    .filter((n) => /^[0-9a-f]{16}$/.test(n));
  return [...new Set(ids)];
}

describe("a project's history in the pass", () => {
  test("finished tasks unchanged for a while are left unread; running ones and leased reopen candidates are read every pass", async () => {
    using w = world();
    const { dir, paths } = w.addProject();
    // Every file counts as settled on the disk's clock; the pass's own clock is the world's fake one.
    w.ctx.fsNow = () => Date.now() + 60_000;
    createWorkspace(w.herdr);
    const failed = w.writeTask(paths, { id: taskId(), status: "failed", herdr_agent_name: "vx-f" }).id;
    const shipped = w.writeTask(paths, { id: taskId(), status: "shipped", herdr_agent_name: "vx-s" }).id;
    const running = w.writeTask(paths, { id: taskId(), herdr_agent_name: "vx-r" }).id;
    const leased = taskId();
    await acquireCamp(paths, { project: dir, taskId: leased, base: "main", exec: realExec });
    w.writeTask(paths, { id: leased, status: "done", herdr_agent_name: "vx-l" });

    expect((await readIn(() => runPass(w.ctx))).sort()).toEqual([failed, shipped, running, leased].sort());
    expect((await readIn(() => runPass(w.ctx))).sort()).toEqual([running, leased].sort());
    expect((await readIn(() => runPass(w.ctx))).sort()).toEqual([running, leased].sort());
  });

  test("a finished task read again when its file changes, or when its camp is leased, is judged as before", async () => {
    using w = world();
    const { dir, paths } = w.addProject();
    w.ctx.fsNow = () => Date.now() + 60_000;
    const ws = createWorkspace(w.herdr);
    const back = w.writeTask(paths, { id: taskId(), status: "failed", herdr_agent_name: "vx-back" }).id;
    const camp = taskId();
    w.writeTask(paths, { id: camp, status: "shipped", herdr_agent_name: "vx-camp", herdr_pane_id: ws.pane_id });
    await runPass(w.ctx);
    expect(await readIn(() => runPass(w.ctx))).toEqual([]);

    // Rewritten as every state write is (temp file + rename): a new inode, read and judged (SEN-08's not-found mark).
    const t = loadTask(paths, back)!.value;
    files.writeAtomic(taskPath(paths, back), renderState({ ...t, status: "running" }));
    expect(await readIn(() => runPass(w.ctx))).toEqual([back]);
    expect(loadTask(paths, back)?.value.agent_not_found_since).toBe(new Date(w.clock.now()).toISOString());

    // Its file unchanged, its camp leased again: a reopen candidate, read, and reopened when its soldier works (SEN-20).
    await acquireCamp(paths, { project: dir, taskId: camp, base: "main", exec: realExec });
    addAgent(w.herdr, ws.pane_id, { name: "vx-camp", kind: "claude", status: "working" });
    expect((await readIn(() => runPass(w.ctx))).sort()).toEqual([back, camp].sort());
    expect(loadTask(paths, camp)?.value.status).toBe("running");
  });

  test("a file changed less than the disk's tick margin ago is read every pass", async () => {
    using w = world();
    const { paths } = w.addProject();
    const id = w.writeTask(paths, { id: taskId(), status: "failed" }).id;
    expect(await readIn(() => runPass(w.ctx))).toEqual([id]);
    expect(await readIn(() => runPass(w.ctx))).toEqual([id]);
  });

  test("a finished task's file removed or archived is forgotten; another put in its place is read", async () => {
    using w = world();
    const { paths } = w.addProject();
    w.ctx.fsNow = () => Date.now() + 60_000;
    const id = w.writeTask(paths, { id: taskId(), status: "failed" }).id;
    await runPass(w.ctx);
    expect(await readIn(() => runPass(w.ctx))).toEqual([]);
    files.removeFile(taskPath(paths, id));
    expect(await readIn(() => runPass(w.ctx))).toEqual([]);
    expect(w.ctx.memory.history.size).toBe(0);
    w.writeTask(paths, { id, status: "running", herdr_agent_name: "vx-again" });
    expect(await readIn(() => runPass(w.ctx))).toEqual([id]);
  });
});
