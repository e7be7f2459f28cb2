// `vx redispatch` of a `failed` task (T11, CMD-REDISPATCH-01/03) on real git camps and a real tmux server: a launch
// that failed for real (a harness that exits before it is ready, a session tmux cannot create, a camp setup that
// fails) is re-run under the same id in a fresh camp; one that fails again ends failed with its camp back in the pool;
// the refusals change nothing.
import { describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readPool } from "../../src/camps/pool";
import { listTasks } from "../../src/state/tasks";
import { callsOf, queueFailure, readState, recordedPrompts } from "../fakes/herdr-control";
import { git, waitFor } from "../helpers";
import { type Field, field, seedTask, taskIdOf } from "./soldier-field";
import { HARNESS, tmuxField } from "./tmux-field";

const quiet = (stderr: string) => stderr.replace(/^vx: auto-started sentinel.*\n/m, "");

// The stand-in harness, broken while $HOME/broken exists: as a harness that is not logged in, it says so and exits.
const GATED = HARNESS.replace("#!/bin/sh\n", `#!/bin/sh\nif [ -e "$HOME/broken" ]; then echo 'Error: not logged in'; ${Bun.which("sleep")} 0.5; exit 3; fi\n`);

async function brokenField() {
  const f = await tmuxField(GATED);
  writeFileSync(join(f.home, "broken"), "");
  // A 3 s readiness wait: the harness is seen to exit (at 0.02 the wait could end first; either is T4).
  f.env.VX_TIME_SCALE = "0.1";
  return f;
}

/** A dispatch that fails at T4 (the harness exits before it is ready): the task id. */
async function failedDispatch(f: Field): Promise<string> {
  const r = await f.run(["dispatch", "fix the login bug", "--backend", "tmux"]);
  expect(r.code).toBe(1);
  const id = taskIdOf(r.stdout);
  expect(r.stdout).toContain("\nstatus=failed\n");
  expect(quiet(r.stderr)).toContain("vx: claude exited in its tmux session before it became ready");
  return id;
}

const slotsOf = (f: Field) => readPool(f.paths).slots;

describe("vx redispatch of a failed task (tmux)", () => {
  test("a harness that exited before it was ready: re-run under the same id in a fresh camp, running", async () => {
    await using f = await brokenField();
    const id = await failedDispatch(f);
    const failed = f.task(id);
    expect(failed).toMatchObject({ status: "failed", camp_slot: 1 });
    // T4 keeps the lease (so it can be struck or redispatched); the session it made is gone.
    expect(slotsOf(f)).toEqual([{ number: 1, branch: `vexillum/${id}`, leased_by: id }]);
    expect(f.tmux("has-session", "-t", `=${failed.tmux_target}`).code).not.toBe(0);
    // What the failed run's camp holds is its setup's leftovers, never work: discarded.
    writeFileSync(join(failed.camp_path!, "left-behind.txt"), "from the failed run\n");

    rmSync(join(f.home, "broken"));
    const r = await f.run(["redispatch", id.slice(0, 8)]);
    expect({ code: r.code, stderr: quiet(r.stderr) }).toEqual({ code: 0, stderr: "" });
    const t = f.task(id);
    expect(r.stdout).toStartWith(`task_id=${id} kind=mission camp_slot=1 camp_branch=vexillum/${id}\nstatus=running\ntmux: session=${t.tmux_target} `);
    expect(t).toMatchObject({ id, status: "running", redispatches: 1, prompt: "fix the login bug", backend: "tmux", camp_base: "main" });
    expect(t.output ?? "").not.toContain("marked failed");
    expect(listTasks(f.paths).map((l) => l.value.id)).toEqual([id]);
    expect(f.tmux("has-session", "-t", `=${t.tmux_target}`).code).toBe(0);
    const screen = () => f.tmux("capture-pane", "-p", "-J", "-t", `=${t.tmux_target}:`, "-S", "-200").out;
    await waitFor(() => screen().includes("fix the login bug"), 10_000, "the original prompt pasted into the new session");
    // A fresh camp: the branch re-made at the base, nothing of the failed run left in it.
    expect(git(f.project, "rev-parse", `vexillum/${id}`)).toBe(git(f.project, "rev-parse", "main"));
    expect(git(t.camp_path!, "status", "--porcelain")).toBe("");
    expect(existsSync(join(t.camp_path!, "left-behind.txt"))).toBe(false);
    expect(slotsOf(f)).toEqual([{ number: 1, branch: `vexillum/${id}`, leased_by: id }]);
  });

  test("a redispatch that fails again ends failed with its camp back in the pool; fixed, the next one runs", async () => {
    await using f = await brokenField();
    const id = await failedDispatch(f);

    const again = await f.run(["redispatch", id]);
    expect(again.code).toBe(1);
    expect(again.stdout).toStartWith(`task_id=${id} kind=mission camp_slot=1 camp_branch=vexillum/${id}\nstatus=failed\n`);
    expect(quiet(again.stderr)).toContain("vx: claude exited in its tmux session before it became ready");
    const t = f.task(id);
    expect(t).toMatchObject({ status: "failed", redispatches: 1 });
    expect(t.output).toContain("before it became ready");
    expect(t.output).toEndWith("- marked failed.");
    // Nothing half-made: no session, no lease, no branch, a clean camp at the base for the next task.
    expect(f.tmux("has-session", "-t", `=${t.tmux_target}`).code).not.toBe(0);
    expect(slotsOf(f).filter((s) => s.leased_by)).toEqual([]);
    expect(git(f.project, "branch", "--list", `vexillum/${id}`)).toBe("");
    expect(git(t.camp_path!, "status", "--porcelain")).toBe("");

    // From a camp already back in the pool (as after a failed camp setup) a redispatch leases one again.
    rmSync(join(f.home, "broken"));
    const r = await f.run(["redispatch", id]);
    expect({ code: r.code, stderr: quiet(r.stderr) }).toEqual({ code: 0, stderr: "" });
    expect(f.task(id)).toMatchObject({ status: "running", redispatches: 2, camp_slot: 1 });
    expect(slotsOf(f)).toEqual([{ number: 1, branch: `vexillum/${id}`, leased_by: id }]);
  });

  test("T3, a session tmux could not create: redispatched once tmux can make it", async () => {
    await using f = await tmuxField();
    // A 3 s readiness wait for the redispatch: at 0.02 (600 ms) a loaded machine once started the harness too late.
    f.env.VX_TIME_SCALE = "0.1";
    // The socket's directory cannot be made under a file: tmux never gets to start the session.
    const blocked = join(f.home, "not-a-dir");
    writeFileSync(blocked, "");
    const r = await f.run(["dispatch", "fix it", "--backend", "tmux"], { env: { ...f.env, TMUX_TMPDIR: blocked } });
    expect(r.code).toBe(1);
    const id = taskIdOf(r.stdout);
    expect(quiet(r.stderr)).toContain("vx: could not start the soldier's tmux session: ");
    expect(f.task(id).status).toBe("failed");
    expect(f.task(id).tmux_session_id).toBeUndefined();
    expect(slotsOf(f)).toEqual([{ number: 1, branch: `vexillum/${id}`, leased_by: id }]);

    const again = await f.run(["redispatch", id]);
    expect({ code: again.code, stderr: quiet(again.stderr) }).toEqual({ code: 0, stderr: "" });
    const t = f.task(id);
    expect(t).toMatchObject({ status: "running", redispatches: 1, camp_slot: 1 });
    expect(t.tmux_socket!.startsWith(f.home)).toBe(true);
    expect(f.tmux("has-session", "-t", `=${t.tmux_target}`).code).toBe(0);
  });

  test("a failed camp setup (camp already back in the pool, its slot since leased by another task): a fresh slot, the other camp untouched", async () => {
    await using f = await tmuxField();
    const config = join(f.project, ".vexillum", "config.json");
    const before = await Bun.file(config).json();
    await Bun.write(config, JSON.stringify({ ...before, camp_setup: [["false"]] }));
    const r = await f.run(["dispatch", "fix it", "--backend", "tmux"]);
    expect(r.code).toBe(1);
    const id = taskIdOf(r.stdout);
    expect(f.task(id)).toMatchObject({ status: "failed", camp_slot: 1 });
    expect(slotsOf(f).filter((s) => s.leased_by)).toEqual([]);
    await Bun.write(config, JSON.stringify(before));
    const other = await f.run(["dispatch", "other work", "--backend", "tmux"]);
    expect(other.code).toBe(0);
    const otherId = taskIdOf(other.stdout);
    const otherCamp = f.task(otherId).camp_path!;
    writeFileSync(join(otherCamp, "theirs.txt"), "the other soldier's\n");

    const again = await f.run(["redispatch", id]);
    expect({ code: again.code, stderr: quiet(again.stderr) }).toEqual({ code: 0, stderr: "" });
    expect(f.task(id)).toMatchObject({ status: "running", camp_slot: 2 });
    expect(existsSync(join(otherCamp, "theirs.txt"))).toBe(true);
    expect(f.task(otherId)).toMatchObject({ camp_slot: 1, camp_path: otherCamp });
    expect(slotsOf(f).map((s) => s.leased_by)).toEqual([otherId, id]);
  });
});

describe("vx redispatch of a failed task (herdr)", () => {
  test("T4 with the tab left: the old tab closed, a new one prompted", async () => {
    await using f = await field();
    queueFailure(f.fh, "agent start", "agent_start_failed", { message: "agent process exited before becoming interactive" });
    const r = await f.run(["dispatch", "fix it"]);
    expect(r.code).toBe(1);
    const old = f.task(taskIdOf(r.stdout));
    expect(old.status).toBe("failed");
    expect(old.herdr_tab_id).toBeString();
    expect(readState(f.fh).tabs.map((t) => t.tab_id)).toContain(old.herdr_tab_id as string);

    const again = await f.run(["redispatch", old.id]);
    expect({ code: again.code, stderr: quiet(again.stderr) }).toEqual({ code: 0, stderr: "" });
    const t = f.task(old.id);
    expect(t).toMatchObject({ status: "running", redispatches: 1 });
    expect(t.herdr_tab_id).not.toBe(old.herdr_tab_id);
    expect(readState(f.fh).tabs.map((tab) => tab.tab_id)).not.toContain(old.herdr_tab_id);
    expect(recordedPrompts(f.fh)).toHaveLength(1);
  });

  test("a re-run whose harness fails again: its new tab closed, its camp back in the pool, the task failed", async () => {
    await using f = await field();
    const start = { message: "agent process exited before becoming interactive" };
    queueFailure(f.fh, "agent start", "agent_start_failed", start);
    const id = taskIdOf((await f.run(["dispatch", "fix it"])).stdout);
    queueFailure(f.fh, "agent start", "agent_start_failed", start);
    const again = await f.run(["redispatch", id]);
    expect(again.code).toBe(1);
    expect(quiet(again.stderr)).toBe("vx: could not start claude in the soldier's pane: herdr agent start: agent process exited before becoming interactive (agent_start_failed)\n");
    const t = f.task(id);
    expect(t).toMatchObject({ status: "failed", redispatches: 1 });
    // Both runs' tabs are gone: the first closed before the re-run, the second after it failed.
    expect(callsOf(f.fh, "tab", "create")).toHaveLength(2);
    expect(readState(f.fh).tabs.filter((tab) => tab.tab_id !== f.ws.tab_id)).toEqual([]);
    expect(slotsOf(f).filter((s) => s.leased_by)).toEqual([]);
    expect(git(f.project, "branch", "--list", `vexillum/${id}`)).toBe("");
    expect(recordedPrompts(f.fh)).toHaveLength(0);
  });
});

describe("failed tasks: the refusals", () => {
  test("a harness no longer installed refuses the redispatch, naming --profile; nothing changes", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "failed", harness: "codex" });
    rmSync(join(f.bin, "codex"));
    const pool = slotsOf(f);
    const r = await f.run(["redispatch", task.id]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "vx: codex not found in PATH, needed to run Codex soldiers - install Codex (or put codex on PATH), or redispatch with --profile <name> naming a profile of another harness (vx models lists them)\n",
    });
    expect(f.task(task.id)).toEqual(task);
    expect(slotsOf(f)).toEqual(pool);
    expect(callsOf(f.fh, "tab", "create")).toHaveLength(0);
  });

  test("resume and prompt refuse a failed task and name redispatch; other statuses stay refused by redispatch", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "failed" });
    let r = await f.run(["resume", task.id]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: `vx: task ${task.id} is failed - vx could not start or prompt its soldier, so there is nothing to resume; run it again with 'vx redispatch ${task.id}'\n`,
    });
    r = await f.run(["prompt", task.id, "go on"]);
    expect(r.stderr).toBe(`vx: task ${task.id} is failed - vx could not start or prompt its soldier, so there is none to prompt; run it again with 'vx redispatch ${task.id}'\n`);
    expect(f.task(task.id)).toEqual(task);
    for (const status of ["running", "blocked", "unconfirmed", "pending"] as const) {
      const other = await seedTask(f, { status });
      r = await f.run(["redispatch", other.task.id]);
      expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: task ${other.task.id} is ${status} - only an interrupted or failed task can be redispatched\n` });
      expect(f.task(other.task.id)).toEqual(other.task);
    }
  });
});
