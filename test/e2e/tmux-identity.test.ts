// Which tmux soldier a task is (issue 15): its own session and pane ids on its own server, and a
// pane verified as the task's before anything is typed into it or killed; a pane's path or
// command never forges the survey; a project path with a newline dispatches.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeSoldierState } from "../../src/state/soldier-state";
import { readPool } from "../../src/camps/pool";
import { projectPaths } from "../../src/state/paths";
import { listTasks, loadTask, updateTask } from "../../src/state/tasks";
import { VX_BIN, git, vx, waitFor } from "../helpers";
import { seedTask, taskIdOf } from "./soldier-field";
import { tmuxField } from "./tmux-field";

type TF = Awaited<ReturnType<typeof tmuxField>>;

const clean = (stderr: string) => stderr.replace(/^vx: auto-started sentinel.*\n/m, "");

/** The task finished, as the sentinel would record it, so `vx prompt` may follow it up. */
async function finish(f: TF, id: string): Promise<void> {
  const at = new Date().toISOString();
  writeSoldierState(f.paths, { task_id: id, state: "idle", at });
  await updateTask(f.paths, id, (t) => ({ ...t, status: "done", updated_at: at }));
}

describe("tmux soldiers are found by their own ids", () => {
  test("a later soldier that took an ended session's name is never prompted or killed for the earlier task", async () => {
    await using f = await tmuxField();
    const ra = await f.run(["dispatch", "fix the login bug", "--backend", "tmux"]);
    expect({ code: ra.code, stderr: clean(ra.stderr) }).toEqual({ code: 0, stderr: "" });
    const a = taskIdOf(ra.stdout);
    const first = f.task(a);
    expect(first.tmux_target).toBe("vx-fix-the-login-bug");
    // A's session ends (its harness quit, or the user closed it).
    expect(f.tmux("kill-session", "-t", "=vx-fix-the-login-bug").code).toBe(0);
    await finish(f, a);

    const b = taskIdOf((await f.run(["dispatch", "fix the login bug", "--backend", "tmux"])).stdout);
    const second = f.task(b);
    expect(second.tmux_target).toBe(first.tmux_target);
    const screen = () => f.tmux("capture-pane", "-p", "-J", "-t", "=vx-fix-the-login-bug:", "-S", "-200").out;
    await waitFor(() => screen().includes("fix the login bug"), 10_000, "B's prompt");

    const r = await f.run(["prompt", a, "a follow-up meant for A"]);
    expect({ code: r.code, stderr: clean(r.stderr) }).toMatchObject({ code: 1 });
    expect(r.stderr).toContain(`task ${a}'s tmux pane is gone`);
    const struck = await f.run(["strike", a, "--discard"]);
    expect({ code: struck.code, stderr: struck.stderr }).toEqual({ code: 0, stderr: "" });
    expect(struck.stdout).toContain("struck: camp returned to the pool, tmux session vx-fix-the-login-bug left running (not this task's).");
    expect(f.tmux("has-session", "-t", "=vx-fix-the-login-bug").code).toBe(0);
    expect(screen()).not.toContain("a follow-up meant for A");
    // Each recorded its session's and pane's ids. The server exited with A's session, so B's new
    // server handed out the same ids again: only the session's VX_TASK_ID told B from A.
    expect(first.tmux_session_id).toMatch(/^\$\d+$/);
    expect(first.tmux_pane_id).toMatch(/^%\d+$/);
    expect(second.tmux_pane_id).toMatch(/^%\d+$/);
  });

  test("a soldier whose foreground process cd'd out of its camp is still killed by strike", async () => {
    // Once it has its prompt the harness leaves the camp (as a harness's shell tool may, or the
    // user in it): its session is still the task's.
    await using f = await tmuxField(`#!/bin/sh\n${Bun.which("stty")} -echo\nprintf '\\342\\235\\257 \\n'\nread line\ncd /tmp\nexec cat\n`);
    const r = await f.run(["dispatch", "fix the login bug", "--backend", "tmux"]);
    expect({ code: r.code, stderr: clean(r.stderr) }).toEqual({ code: 0, stderr: "" });
    const id = taskIdOf(r.stdout);
    const path = () => f.tmux("display-message", "-p", "-t", "=vx-fix-the-login-bug:", "#{pane_current_path}").out.trim();
    await waitFor(() => path() === "/tmp", 10_000, "the harness in /tmp");
    const struck = await f.run(["strike", id, "--discard"]);
    expect({ code: struck.code, stderr: struck.stderr }).toEqual({ code: 0, stderr: "" });
    expect(struck.stdout).toContain("struck: camp returned to the pool, tmux session closed.");
    expect(f.tmux("has-session", "-t", "=vx-fix-the-login-bug").code).not.toBe(0);
  });

  test("a session in the camp that is not verified as the task's is neither killed nor the camp freed under it", async () => {
    await using f = await tmuxField();
    const r = await f.run(["dispatch", "fix the login bug", "--backend", "tmux"]);
    expect({ code: r.code, stderr: clean(r.stderr) }).toEqual({ code: 0, stderr: "" });
    const id = taskIdOf(r.stdout);
    // Its VX_TASK_ID changed by hand: it may still be the soldier, working in the camp.
    expect(f.tmux("set-environment", "-t", "=vx-fix-the-login-bug", "VX_TASK_ID", "someone-else").code).toBe(0);
    const struck = await f.run(["strike", id, "--discard"]);
    expect({ code: struck.code, stdout: struck.stdout }).toEqual({ code: 1, stdout: "" });
    expect(struck.stderr).toContain(`vx: strike failed: tmux session vx-fix-the-login-bug runs in the camp but is not verified as task ${id}'s soldier - close it yourself, then strike again`);
    expect(f.tmux("has-session", "-t", "=vx-fix-the-login-bug").code).toBe(0);
    expect(readPool(f.paths).slots.map((s) => s.leased_by)).toEqual([id]);
  });

  test("a task from before ids were recorded: its name now on another task's session is not its soldier", async () => {
    await using f = await tmuxField();
    const other = await seedTask(f, { backend: "tmux", status: "running", tmux_target: "vx-s", herdr_agent_name: undefined, herdr_pane_id: undefined, herdr_tab_id: undefined });
    const old = await seedTask(f, { backend: "tmux", status: "done", tmux_target: "vx-s", herdr_agent_name: undefined, herdr_pane_id: undefined, herdr_tab_id: undefined });
    const made = f.tmux("new-session", "-d", "-s", "vx-s", "-c", other.task.camp_path!, "-e", `VX_TASK_ID=${other.task.id}`, "--", join(f.bin, "claude"));
    expect(made.code).toBe(0);
    const screen = () => f.tmux("capture-pane", "-p", "-J", "-t", "=vx-s:", "-S", "-200").out;
    await waitFor(() => screen().includes("❯"), 10_000, "the other soldier");
    await finish(f, old.task.id);
    const r = await f.run(["prompt", old.task.id, "meant for the old task"]);
    expect(r.code).toBe(1);
    expect((await f.run(["strike", old.task.id, "--discard"])).code).toBe(0);
    expect(f.tmux("has-session", "-t", "=vx-s").code).toBe(0);
    expect(screen()).not.toContain("meant for the old task");
  });

  test("a soldier dispatched from a pane of another tmux server lives there, is watched there and struck there", async () => {
    await using f = await tmuxField();
    const work = join(f.home, "work.sock");
    const onWork = (...args: string[]) => Bun.spawnSync(["tmux", "-S", work, ...args], { env: f.env, stdout: "pipe", stderr: "pipe" });
    // The commander's pane on the other server (as `tmux -L work` makes one).
    expect(onWork("new-session", "-d", "-s", "commander", "--", "cat", "-").exitCode).toBe(0);
    const plain = { ...f.env };
    // A sentinel started from a plain terminal, before the dispatch (which then starts none).
    const sentinel = Bun.spawn([VX_BIN, "sentinel"], { cwd: f.home, env: plain, stdout: "ignore", stderr: "ignore" });
    try {
      await waitFor(() => existsSync(join(f.home, ".vexillum", "sentinel.pid")), 30_000, "the sentinel");
      const r = await f.run(["dispatch", "fix it", "--backend", "tmux"], { env: { ...f.env, TMUX: `${work},1,0`, TMUX_PANE: "%0" } });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      const id = taskIdOf(r.stdout);
      const t = f.task(id);
      expect(onWork("has-session", "-t", "=vx-fix-it").exitCode).toBe(0);
      expect(f.tmux("has-session", "-t", "=vx-fix-it").code).not.toBe(0);

      // It finishes: the sentinel finds it on its own server and settles it done, never interrupted.
      git(t.camp_path!, "commit", "-q", "--allow-empty", "-m", "fixed");
      expect((await f.run(["report", "idle"], { cwd: t.camp_path!, env: { ...plain, VX_TASK_ID: id } })).code).toBe(0);
      const settled = await waitFor(() => (f.task(id).status === "running" ? undefined : f.task(id)), 30_000, "the task settled");
      expect(settled.status).toBe("done");

      git(f.project, "merge", "-q", "--ff-only", `vexillum/${id}`);
      const struck = await f.run(["strike", id], { env: plain });
      expect({ code: struck.code, stderr: struck.stderr }).toEqual({ code: 0, stderr: "" });
      expect(onWork("has-session", "-t", "=vx-fix-it").exitCode).not.toBe(0);
      expect(onWork("has-session", "-t", "=commander").exitCode).toBe(0);
      expect(t.tmux_socket).toBe(work);
    } finally {
      sentinel.kill("SIGTERM");
      await sentinel.exited;
      onWork("kill-server");
    }
  });

  test("a newline in a soldier's current path forges no survey row: it is still prompted", async () => {
    await using f = await tmuxField();
    // A UTF-8 client, as users have: tmux then prints a path's newline as it is.
    f.env.LANG = "C.UTF-8";
    const { task } = await seedTask(f, { backend: "tmux", status: "done", tmux_target: "vx-s", herdr_agent_name: undefined, herdr_pane_id: undefined, herdr_tab_id: undefined });
    // Under the row format before: the soldier's own session, dead.
    const forged = join(task.camp_path!, "x\nvx-s|%0|1|1|claude|y");
    mkdirSync(forged);
    expect(f.tmux("new-session", "-d", "-s", "vx-s", "-c", forged, "-e", `VX_TASK_ID=${task.id}`, "--", join(f.bin, "claude")).code).toBe(0);
    const screen = () => f.tmux("capture-pane", "-p", "-J", "-t", "=vx-s:", "-S", "-200").out;
    await waitFor(() => screen().includes("❯"), 10_000, "the soldier");
    await finish(f, task.id);
    const r = await f.run(["prompt", task.id, "also the changelog"]);
    expect({ code: r.code, stderr: clean(r.stderr) }).toEqual({ code: 0, stderr: "" });
    await waitFor(() => screen().includes("also the changelog"), 10_000, "the prompt");
  });

  test("a project whose path holds a newline dispatches on tmux: the isolation gate reads the path whole", async () => {
    await using f = await tmuxField();
    const dir = join(f.home, "my\nproject");
    mkdirSync(dir);
    git(dir, "init", "-q", "-b", "main");
    writeFileSync(join(dir, "README.md"), "# demo\n");
    git(dir, "add", "README.md");
    git(dir, "commit", "-q", "-m", "initial");
    expect((await vx(["init", "--yes"], { cwd: dir, env: f.env })).code).toBe(0);
    const r = await f.run(["dispatch", "fix it", "--backend", "tmux"], { cwd: dir });
    expect({ code: r.code, stderr: clean(r.stderr) }).toEqual({ code: 0, stderr: "" });
    const paths = projectPaths(join(f.home, ".vexillum"), dir);
    const t = loadTask(paths, taskIdOf(r.stdout))!.value;
    expect(t.status).toBe("running");
    expect(listTasks(paths)).toHaveLength(1);
  });
});
