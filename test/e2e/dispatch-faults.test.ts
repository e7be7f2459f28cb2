// `vx dispatch` against herdr's faults (HRD-05/06), concurrency (STA-09) and commanders (CMDR-01..04).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { readPool } from "../../src/camps/pool";
import { projectPaths } from "../../src/state/paths";
import { listTasks } from "../../src/state/tasks";
import { addAgent, callsOf, createWorkspace, getAgent, holdCommand, queueFailure, recordedPrompts, sentKeys } from "../fakes/herdr-control";
import { VX_BIN, git, sandbox, waitFor } from "../helpers";
import { field, taskIdOf } from "./soldier-field";

describe("vx dispatch: herdr faults", () => {
  test("tab creation failing leaves the task failed with its slot still leased", async () => {
    await using f = await field();
    queueFailure(f.fh, "tab create", "workspace_not_found", { message: "workspace w9 not found" });
    const r = await f.run(["dispatch", "fix it"]);
    expect(r.code).toBe(1);
    const id = taskIdOf(r.stdout);
    expect(r.stdout).toBe(`task_id=${id} kind=mission camp_slot=1 camp_branch=vexillum/${id}\nstatus=failed\n`);
    expect(r.stderr).toContain("vx: could not create the soldier's herdr tab: herdr tab create: workspace w9 not found (workspace_not_found)\n");
    const t = f.task(id);
    expect(t.status).toBe("failed");
    expect(t.output).toBe("[vexillum] could not create the soldier's herdr tab: herdr tab create: workspace w9 not found (workspace_not_found) - marked failed.");
    expect(t.herdr_pane_id).toBeUndefined();
    expect(readPool(f.paths).slots).toEqual([{ number: 1, branch: `vexillum/${id}`, leased_by: id }]);
  });

  test("a slow agent start is never judged by the sentinel: no false interrupted, and the prompt goes in", async () => {
    await using f = await field();
    const hold = holdCommand(f.fh, "agent start");
    const dispatching = f.run(["dispatch", "fix it"]);
    try {
      await waitFor(() => callsOf(f.fh, "agent", "start").length === 1, 30_000, "the agent start");
      // Eight passes at this scale are past the settle grace and the not-found window together.
      const before = callsOf(f.fh, "agent", "list").length;
      const judged = () => listTasks(f.paths)[0]?.value.status !== "running";
      await waitFor(() => callsOf(f.fh, "agent", "list").length >= before + 8 || judged(), 30_000, "eight sentinel passes");
      const [t] = listTasks(f.paths).map((l) => l.value);
      expect(t).toMatchObject({ status: "running" });
      expect(t?.agent_not_found_since).toBeUndefined();
    } finally {
      hold.release();
    }
    const r = await dispatching;
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(r.stdout).toContain("\nstatus=running\n");
    expect(recordedPrompts(f.fh, "vx-fix-it")).toHaveLength(1);
    expect(existsSync(f.paths.wakesDir) ? readdirSync(f.paths.wakesDir).filter((n) => n.endsWith(".json")) : []).toEqual([]);
  });

  test("HRD-08: while the harness starts, the dispatcher's environment waits in a 0600 file for a launcher first on the tab's PATH; both are gone after", async () => {
    await using f = await field();
    f.env.COMPAT_KEY = "sk-dispatcher-only";
    const hold = holdCommand(f.fh, "agent start");
    const dispatching = f.run(["dispatch", "fix it"]);
    try {
      await waitFor(() => callsOf(f.fh, "agent", "start").length === 1, 30_000, "the agent start");
      const id = listTasks(f.paths)[0]!.value.id;
      const hooks = join(f.paths.stateDir, "hooks", id);
      const [create] = callsOf(f.fh, "tab", "create").map((c) => c.argv);
      expect(create!.slice(-2)).toEqual(["--env", `PATH=${join(hooks, "bin")}:${f.env.PATH}`]);
      expect(JSON.parse(readFileSync(join(hooks, "soldier-env.json"), "utf8"))).toMatchObject({ COMPAT_KEY: "sk-dispatcher-only", HOME: f.home });
      expect(statSync(join(hooks, "soldier-env.json")).mode & 0o777).toBe(0o600);
      const script = join(hooks, "bin", "claude");
      expect(statSync(script).mode & 0o777).toBe(0o700);
      expect(readFileSync(script, "utf8")).toBe(`#!/bin/sh\nexec '${join(hooks, "bin", ".vx", "claude")}' '__soldier-exec' '${join(hooks, "soldier-env.json")}' '--' 'claude' "$@"\n`);
      expect(realpathSync(join(hooks, "bin", ".vx", "claude"))).toBe(realpathSync(VX_BIN));
      // No value but PATH on herdr's command lines.
      expect(callsOf(f.fh).some((c) => c.argv.join(" ").includes("sk-dispatcher-only"))).toBe(false);
    } finally {
      hold.release();
    }
    const r = await dispatching;
    expect(r.code).toBe(0);
    const id = taskIdOf(r.stdout);
    expect(existsSync(join(f.paths.stateDir, "hooks", id, "soldier-env.json"))).toBe(false);
    expect(existsSync(join(f.paths.stateDir, "hooks", id, "bin"))).toBe(false);
  });

  test("agent_pane_busy right after tab creation is retried", async () => {
    await using f = await field();
    queueFailure(f.fh, "agent start", "agent_pane_busy", { count: 2 });
    const r = await f.run(["dispatch", "fix it"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("\nstatus=running\n");
    expect(callsOf(f.fh, "agent", "start")).toHaveLength(3);
    expect(recordedPrompts(f.fh)).toHaveLength(1);
  });

  test("a harness that cannot start fails the task (T4), keeping its pane ids", async () => {
    await using f = await field();
    queueFailure(f.fh, "agent start", "agent_start_failed", { message: "agent process exited before becoming interactive" });
    const r = await f.run(["dispatch", "fix it"]);
    expect(r.code).toBe(1);
    const t = f.task(taskIdOf(r.stdout));
    expect(t).toMatchObject({ status: "failed", herdr_agent_name: "vx-fix-it" });
    expect(r.stdout).toContain(`\nstatus=failed\nherdr: workspace=${f.ws.workspace_id} tab=${t.herdr_tab_id} pane=${t.herdr_pane_id} agent=vx-fix-it\n`);
    expect(r.stderr).toContain("vx: could not start claude in the soldier's pane: herdr agent start: agent process exited before becoming interactive (agent_start_failed)\n");
    expect(recordedPrompts(f.fh)).toHaveLength(0);
  });

  test("the folder-trust dialog is answered as its screen shows it: Down to 'Yes, I trust this folder', then Enter", async () => {
    // The 15 s trust wait scaled to 6 s: at 0.02 (300 ms), and once at 0.2 (3 s) on a machine loaded 12 times over its
    // CPUs, the fake herdr's calls outlasted it. It ends when the dialog is answered, so the margin costs nothing.
    await using f = await field({ scale: "0.4" });
    queueFailure(f.fh, "agent start", "agent_not_ready");
    const r = await f.run(["dispatch", "fix it"]);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(r.stdout).toContain("\nstatus=running\n");
    expect(sentKeys(f.fh, "vx-fix-it").map((k) => k.keys)).toEqual([["Down"], ["Enter"]]);
    expect(recordedPrompts(f.fh)).toHaveLength(1);
  });

  test("agent_prompt_stalled: the prompt is recorded exactly once", async () => {
    await using f = await field();
    // A false stall: herdr delivered the prompt, then reported it stalled.
    queueFailure(f.fh, "agent prompt", "agent_prompt_stalled", { deliver: true });
    let r = await f.run(["dispatch", "fix it"]);
    expect(r.code).toBe(0);
    expect(recordedPrompts(f.fh, "vx-fix-it")).toHaveLength(1);
    // A real stall: nothing went in, so one retry delivers it.
    queueFailure(f.fh, "agent prompt", "agent_prompt_stalled");
    r = await f.run(["dispatch", "tidy up"]);
    expect(r.code).toBe(0);
    expect(recordedPrompts(f.fh, "vx-tidy-up")).toHaveLength(1);
    expect(callsOf(f.fh, "agent", "prompt", "vx-tidy-up")).toHaveLength(2);
  });

  test("a pane that closes before its first prompt fails the task", async () => {
    await using f = await field();
    queueFailure(f.fh, "agent prompt", "agent_not_running");
    const r = await f.run(["dispatch", "fix it"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("vx: the soldier's herdr pane closed before it could be prompted\n");
    expect(f.task(taskIdOf(r.stdout)).status).toBe("failed");
  });

  test("a name already taken switches to the fallback name", async () => {
    await using f = await field();
    const first = await f.run(["dispatch", "fix it"]);
    const second = await f.run(["dispatch", "fix it"]);
    expect([first.code, second.code]).toEqual([0, 0]);
    const id = taskIdOf(second.stdout);
    expect(f.task(id).herdr_agent_name).toBe(`vx-fix-it-${id.slice(0, 6)}`);
    expect(second.stdout).toContain(` agent=vx-fix-it-${id.slice(0, 6)}\n`);
    expect(getAgent(f.fh, `vx-fix-it-${id.slice(0, 6)}`)).toBeDefined();
  });
});

describe("vx dispatch: concurrency", () => {
  test("8 dispatches started at the same moment get 8 distinct slots and 8 tasks", async () => {
    await using f = await field();
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => f.run(["dispatch", `task number ${i}`])));
    for (const r of runs) expect({ code: r.code, stderr: r.stderr.replace(/vx: auto-started sentinel.*\n/, "") }).toEqual({ code: 0, stderr: "" });
    const ids = runs.map((r) => taskIdOf(r.stdout));
    const tasks = listTasks(f.paths).map((t) => t.value);
    expect(tasks.map((t) => t.id).sort()).toEqual([...ids].sort());
    expect(new Set(tasks.map((t) => t.camp_slot)).size).toBe(8);
    const slots = readPool(f.paths).slots;
    expect(slots.map((s) => s.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(slots.map((s) => s.leased_by).sort()).toEqual([...ids].sort());
    for (const t of tasks) expect(git(t.camp_path as string, "rev-parse", "--abbrev-ref", "HEAD")).toBe(`vexillum/${t.id}`);
    expect(recordedPrompts(f.fh)).toHaveLength(8);
  });
});

describe("vx dispatch: commanders", () => {
  test("a commander in this project is recorded on the task and in commanders.json", async () => {
    await using f = await field();
    addAgent(f.fh, f.ws.pane_id, { kind: "claude", status: "working" });
    const r = await f.run(["dispatch", "fix it"]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("warning");
    expect(f.task(taskIdOf(r.stdout))).toMatchObject({ commander_project: f.project, commander_pane: f.ws.pane_id });
    const registry = JSON.parse(readFileSync(f.paths.commandersFile, "utf8"));
    expect(registry).toEqual({
      schema_version: 1,
      commanders: {
        claude: {
          herdr_pane_id: f.ws.pane_id,
          herdr_workspace_id: f.ws.workspace_id,
          project_path: f.project,
          registered_at: registry.commanders.claude.registered_at,
        },
      },
    });
  });

  test("a commander working in another project gets the CMDR-04 warning", async () => {
    await using f = await field();
    using other = sandbox();
    const ws = createWorkspace(f.fh, { cwd: other.project });
    addAgent(f.fh, ws.pane_id, { kind: "pi", status: "working" });
    const otherPaths = projectPaths(join(f.home, ".vexillum"), other.project);
    const r = await f.run(["dispatch", "fix it"], { env: { ...f.env, HERDR_PANE_ID: ws.pane_id } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `vx: warning: this commander works in ${other.project}, not ${f.project} - the sentinel wakes it there, but run vx status, land, strike and prompt for this soldier from ${f.project}\n`,
    );
    expect(f.task(taskIdOf(r.stdout))).toMatchObject({ commander_project: other.project, commander_pane: ws.pane_id });
    expect(JSON.parse(readFileSync(otherPaths.commandersFile, "utf8")).commanders.pi.project_path).toBe(other.project);
  });
});
