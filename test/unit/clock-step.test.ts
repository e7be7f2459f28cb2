// TIME-02: the wall clock stepping back (NTP, a person setting it) between a soldier's report and
// the sentinel's decision. Every stored time later than now counts as long ago, so no task waits
// for the clock to catch up; the pass asks the settle grace of decide.ts, its one home (SEN-07).
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeSoldierState } from "../../src/state/soldier-state";
import { TRAILER } from "../../src/lifecycle/evidence";
import { NOTE_PAUSE_STALE } from "../../src/lifecycle/notes";
import { pausePath } from "../../src/lifecycle/observe";
import { runPass } from "../../src/sentinel/pass";
import { loadTask } from "../../src/state/tasks";
import { finishedTmuxMission, iso, taskId, tmuxWorld } from "../sentinel-kit";

const HOUR = 3_600_000;
const STEPS: [string, number][] = [
  ["an hour", HOUR],
  ["a day", 24 * HOUR],
];

describe("the wall clock steps back between a soldier's report and the sentinel's decision", () => {
  test.each(STEPS)("back %s after an idle report (stamped in the future now): done at this pass, with its wake", async (_, back) => {
    using w = tmuxWorld();
    const project = w.addProject();
    const { paths } = project;
    const id = await finishedTmuxMission(w, project, { updated_at: iso(w.clock.now()) });
    writeSoldierState(paths, { task_id: id, state: "working", at: iso(w.clock.now()), source: "claude" });
    // Ten minutes of work, the idle report, then the step: the report and updated_at are in the future.
    w.clock.advance(10 * 60_000);
    writeSoldierState(paths, { task_id: id, state: "idle", at: iso(w.clock.now()), source: "claude" });
    w.clock.step(-back);
    await runPass(w.ctx);
    expect(loadTask(paths, id)?.value.status).toBe("done");
    expect(JSON.parse(readFileSync(join(paths.wakesDir, `${id}.json`), "utf8"))).toMatchObject({ new_status: "done" });
  });

  test.each(STEPS)("back %s: a question in the pane is a blocked task and a wake at this pass", async (_, back) => {
    using w = tmuxWorld();
    const { paths } = w.addProject();
    const id = taskId();
    w.tmux.add("vx-q", { text: `${TRAILER}\nneeds-decision: drop the legacy table or keep it?\n` });
    w.writeTask(paths, { id, backend: "tmux", tmux_target: "vx-q", updated_at: iso(w.clock.now()) });
    writeSoldierState(paths, { task_id: id, state: "idle", at: iso(w.clock.now() + 60_000), source: "claude" });
    w.clock.step(-back);
    await runPass(w.ctx);
    expect(loadTask(paths, id)?.value).toMatchObject({ status: "blocked", decision: { question: "drop the legacy table or keep it?" } });
    expect(JSON.parse(readFileSync(join(paths.wakesDir, `${id}.json`), "utf8"))).toMatchObject({ new_status: "blocked" });
  });

  test("a pause file written before the step is not trusted until the clock catches up: unconfirmed after the window (SEN-17)", async () => {
    using w = tmuxWorld();
    const { paths } = w.addProject();
    const id = taskId();
    w.tmux.add("vx-p", { text: `${TRAILER}\nWaiting for the build.\n` });
    const task = w.writeTask(paths, { id, backend: "tmux", tmux_target: "vx-p" });
    writeSoldierState(paths, { task_id: id, state: "idle", at: iso(w.clock.now()), source: "claude" });
    mkdirSync(paths.pausesDir, { recursive: true });
    writeFileSync(pausePath(paths, task), "waiting for CI\n");
    const written = w.clock.now() / 1000;
    utimesSync(pausePath(paths, task), written, written);
    w.clock.step(-HOUR);
    await runPass(w.ctx);
    expect(loadTask(paths, id)?.value).toMatchObject({ status: "running", idle_unconfirmed_since: iso(w.clock.now()) });
    w.clock.advance(30_000);
    await runPass(w.ctx);
    expect(loadTask(paths, id)?.value).toMatchObject({ status: "unconfirmed" });
    expect(loadTask(paths, id)?.value.output).toEndWith(NOTE_PAUSE_STALE);
  });
});
