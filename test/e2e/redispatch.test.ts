// `vx redispatch` end to end (CMD-REDISPATCH-01/02, T11).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readPool } from "../../src/camps/pool";
import { pausePath, reportPath } from "../../src/lifecycle/observe";
import { readState, recordedPrompts, removeAgent } from "../fakes/herdr-control";
import { git, waitFor } from "../helpers";
import { field, seedTask, stillRunningLines, taskIdOf } from "./soldier-field";

describe("vx redispatch", () => {
  test("only an interrupted or failed task, and only inside a herdr pane", async () => {
    await using f = await field();
    const done = await seedTask(f, { status: "done" });
    let r = await f.run(["redispatch", done.task.id]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: task ${done.task.id} is done - only an interrupted or failed task can be redispatched\n`,
    });
    const gone = await seedTask(f, { status: "interrupted" });
    const { HERDR_WORKSPACE_ID: _, ...env } = f.env;
    r = await f.run(["redispatch", gone.task.id], { env });
    expect(r.stderr).toBe("vx: HERDR_WORKSPACE_ID is not set - run vx from inside a herdr pane, or use --backend tmux (vx init --backend tmux makes it this project's default)\n");
    r = await f.run(["redispatch"]);
    expect(r.code).toBe(64);
    expect(f.task(gone.task.id)).toEqual(gone.task);
    // CMD-DEMO-02: a demo harness task is refused outside vx demo (and on herdr) before anything changes.
    const demo = await seedTask(f, { status: "interrupted", harness: "demo" });
    r = await f.run(["redispatch", demo.task.id]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: the demo harness runs only on the tmux backend - use --backend tmux (or just run: vx demo)\n" });
    expect(f.task(demo.task.id)).toEqual(demo.task);
  });

  test("an interrupted mission is re-run from its original prompt under the same id", async () => {
    await using f = await field();
    const first = await f.run(["dispatch", "fix", "the", "login", "bug"]);
    const id = taskIdOf(first.stdout);
    const old = f.task(id);
    const name = old.herdr_agent_name as string;
    const camp = old.camp_path as string;
    writeFileSync(join(camp, "WIP.md"), "half done\n");
    git(camp, "add", "WIP.md");
    git(camp, "commit", "-q", "-m", "half of it");
    writeFileSync(join(camp, "scratch.txt"), "uncommitted\n");
    for (const file of [reportPath(f.paths, old), pausePath(f.paths, old)]) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, "stale\n");
    }
    // The harness exits; its tab stays. The sentinel records the loss.
    removeAgent(f.fh, name);
    await waitFor(() => f.task(id).status === "interrupted", 10_000, "the sentinel to mark the task interrupted");

    const r = await f.run(["redispatch", id]);
    expect(r.code).toBe(0);
    const t = f.task(id);
    expect(r.stdout).toBe(stillRunningLines(f, t, name));
    expect(t).toMatchObject({ id, status: "running", redispatches: 1, prompt: "fix the login bug", camp_base: "main", herdr_agent_name: name });
    expect(t.herdr_tab_id).not.toBe(old.herdr_tab_id);
    expect(t.output).toBeUndefined();
    expect(t.agent_not_found_since).toBeUndefined();
    expect(readState(f.fh).tabs.map((tab) => tab.tab_id)).not.toContain(old.herdr_tab_id);
    // The old work is gone: the branch was recreated at the base, the camp is clean.
    expect(git(f.project, "rev-parse", `vexillum/${id}`)).toBe(git(f.project, "rev-parse", "main"));
    expect(git(t.camp_path as string, "status", "--porcelain")).toBe("");
    expect(existsSync(reportPath(f.paths, old))).toBe(false);
    expect(existsSync(pausePath(f.paths, old))).toBe(false);
    expect(readPool(f.paths).slots).toEqual([{ number: 1, branch: `vexillum/${id}`, leased_by: id }]);
    const prompts = recordedPrompts(f.fh);
    expect(prompts).toHaveLength(2);
    expect(prompts[1].text).toBe(prompts[0].text);
  });

  test("a struck camp still on the task's branch is discarded too", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "interrupted", leased: false, model: "opus", effort: "high", kind: "scout" });
    const r = await f.run(["redispatch", task.id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith(`task_id=${task.id} kind=scout camp_slot=1 camp_branch=vexillum/${task.id}\nstatus=running\n`);
    expect(f.task(task.id)).toMatchObject({ redispatches: 1, model: "opus", effort: "high", kind: "scout", harness: "claude" });
    expect(readPool(f.paths).slots).toEqual([{ number: 1, branch: `vexillum/${task.id}`, leased_by: task.id }]);
    expect(recordedPrompts(f.fh)[0].text).toContain("Before you finish, write your final report");
  });
});
