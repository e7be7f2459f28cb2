// A tmux delivery is made under a `working` intent (issue 15, item 9): the harness's `working`
// once delivered, a hook's report written meanwhile kept, and an intent left by a delivery that
// died read as idle, so the sentinel settles the task instead of waiting forever.
import { describe, expect, test } from "bun:test";
import { DELIVERING, deliverUnderIntent, readSoldierState, writeSoldierState } from "../../src/state/soldier-state";
import { reportedStatus } from "../../src/backends/reported";
import { projectPaths } from "../../src/state/paths";
import { sandbox, taskFixture } from "../helpers";

const ID = "0123456789abcdef";

function paths() {
  const s = sandbox();
  return { s, paths: projectPaths(`${s.home}/.vexillum`, s.project) };
}

describe("deliverUnderIntent", () => {
  test("the intent is on record while the text goes in, then the harness's working", async () => {
    const { s, paths: p } = paths();
    using _ = s;
    let during: unknown;
    await deliverUnderIntent(p, ID, "2026-12-01T10:00:00.000Z", "pi", async () => {
      during = readSoldierState(p, ID);
    });
    expect(during).toEqual({ task_id: ID, state: "working", at: "2026-12-01T10:00:00.000Z", source: DELIVERING });
    expect(readSoldierState(p, ID)).toEqual({ task_id: ID, state: "working", at: "2026-12-01T10:00:00.000Z", source: "pi" });
  });

  test("a hook's report written during the delivery stands", async () => {
    const { s, paths: p } = paths();
    using _ = s;
    await deliverUnderIntent(p, ID, "2026-12-01T10:00:00.000Z", "claude", async () => {
      writeSoldierState(p, { task_id: ID, state: "idle", at: "2026-12-01T10:00:01.000Z", source: "claude" });
    });
    expect(readSoldierState(p, ID)).toEqual({ task_id: ID, state: "idle", at: "2026-12-01T10:00:01.000Z", source: "claude" });
  });

  test("a delivery that dies leaves its intent, which the survey reads as idle, never as working", async () => {
    const { s, paths: p } = paths();
    using _ = s;
    const died = deliverUnderIntent(p, ID, "2026-12-01T10:00:00.000Z", "claude", async () => {
      throw new Error("killed before the Enter");
    });
    await expect(died).rejects.toThrow("killed before the Enter");
    expect(readSoldierState(p, ID)?.source).toBe(DELIVERING);
    const at = "2026-12-01T09:00:00.000Z";
    expect(reportedStatus(taskFixture({ id: ID, status: "running", updated_at: at }), p)).toEqual({ status: "idle" });
    expect(reportedStatus(taskFixture({ id: ID, status: "done", updated_at: at }), p)).toEqual({ status: "idle" });
  });
});
