// `vx doctor` on what failed or killed launches leave behind, and the dispatch that reconciles it.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireCamp, readPool } from "../../src/camps/pool";
import { realExec } from "../../src/exec";
import { newTaskId } from "../../src/state/ids";
import { ensureProjectRecord } from "../../src/state/project-record";
import { waitFor } from "../helpers";
import { field, seedTask, taskIdOf } from "./soldier-field";
import { tmuxField } from "./tmux-field";

const campLines = (stdout: string) => stdout.split("\n").filter((l) => /^\[\w+\] (camps|camp leases|camp directories|abandoned launches|unleased camps)\b/.test(l));

describe("vx doctor: camps", () => {
  test("nothing left over: one ok line with the slots and leases", async () => {
    await using f = await field();
    await seedTask(f);
    const r = await f.run(["doctor"]);
    expect(campLines(r.stdout)).toEqual(["[ok] camps - 1 slot(s), 1 leased"]);
  });

  test("a lease with no task, a pending task nobody launches, unlisted slot directories: warned, and dispatch takes them back", async () => {
    await using f = await field();
    ensureProjectRecord(f.paths);
    const ghost = newTaskId();
    await acquireCamp(f.paths, { project: f.project, taskId: ghost, base: "main", exec: realExec });
    const pending = await seedTask(f, { status: "pending" });
    const lost = newTaskId();
    await acquireCamp(f.paths, { project: f.project, taskId: lost, base: "main", exec: realExec });
    // pool.json lost the third slot (a dispatch killed between `git worktree add` and the save).
    const pool = readPool(f.paths);
    writeFileSync(f.paths.poolFile, JSON.stringify({ ...pool, slots: pool.slots.filter((s) => s.leased_by !== lost) }));
    mkdirSync(join(f.paths.campsDir, "7", "junk"), { recursive: true });

    const r = await f.run(["doctor"]);
    expect(campLines(r.stdout)).toEqual([
      `[warn] camp leases - slot 1 (task ${ghost}) leased to a task that was never saved; the next vx dispatch takes the slot back`,
      `[warn] abandoned launches - ${pending.task.id} pending with no vx command launching it; a running sentinel marks it failed, then vx strike returns its camp`,
      "[warn] camp directories - slot 3 not in pool.json; the next vx dispatch adopts it",
      `[warn] camp directories - ${join(f.paths.campsDir, "7")} not in pool.json and not a worktree of this project; vx leaves it alone - remove it if nothing in it matters`,
    ]);

    const first = await f.run(["dispatch", "fix it"]);
    expect(first.stdout).toStartWith(`task_id=${taskIdOf(first.stdout)} kind=mission camp_slot=1 `);
    const second = await f.run(["dispatch", "tidy up"]);
    expect(second.stdout).toStartWith(`task_id=${taskIdOf(second.stdout)} kind=mission camp_slot=3 `);
    expect(readPool(f.paths).slots.map((s) => s.number)).toEqual([1, 2, 3]);
  });

  test("a tmux soldier still running in a camp its task no longer holds is warned about", async () => {
    await using f = await tmuxField();
    const fields = { backend: "tmux" as const, herdr_agent_name: undefined, herdr_pane_id: undefined, herdr_tab_id: undefined };
    // Struck while its harness ran on (its session was never recorded), and one whose camp is still leased.
    const loose = await seedTask(f, { ...fields, status: "failed", tmux_target: "vx-loose", leased: false });
    const kept = await seedTask(f, { ...fields, status: "running", tmux_target: "vx-kept" });
    for (const [name, t] of [
      ["vx-loose", loose.task],
      ["vx-kept", kept.task],
    ] as const) {
      expect(f.tmux("new-session", "-d", "-s", name, "-c", t.camp_path!, "-e", `VX_TASK_ID=${t.id}`, "--", join(f.bin, "claude")).code).toBe(0);
    }
    await waitFor(() => f.tmux("capture-pane", "-p", "-t", "=vx-loose:").out.includes("❯"), 10_000, "the harness");
    const sessionId = f.tmux("display-message", "-p", "-t", "=vx-loose:", "#{session_id}").out.trim();
    const r = await f.run(["doctor"]);
    expect(campLines(r.stdout).filter((l) => l.includes("unleased camps"))).toEqual([
      `[warn] unleased camps - task ${loose.task.id}'s harness still runs in tmux session vx-loose (${sessionId}) though its camp is back in the pool - stop it: tmux kill-session -t '${sessionId}'`,
    ]);
  });
});
