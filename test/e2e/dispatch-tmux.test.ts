// `vx dispatch --backend tmux` on a real tmux server of the test's own (TMUX_TMPDIR), from a
// terminal with no herdr: session, readiness, isolation gate, one paste, then the sentinel's
// settle from `vx report`, and strike closing the session.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readPool } from "../../src/camps/pool";
import { listTasks } from "../../src/state/tasks";
import { git, waitFor } from "../helpers";
import { taskIdOf } from "./soldier-field";
import { tmuxField } from "./tmux-field";

describe("vx dispatch --backend tmux", () => {
  test("a session in the camp, gate passed, prompt pasted once; vx report idle + a commit settles done with a wake; strike kills it", async () => {
    await using f = await tmuxField();
    const r = await f.run(["dispatch", "fix the login bug", "--backend", "tmux"]);
    expect({ code: r.code, stderr: r.stderr.replace(/^vx: auto-started sentinel.*\n/m, "") }).toEqual({ code: 0, stderr: "" });
    const id = taskIdOf(r.stdout);
    const t = listTasks(f.paths)[0]!.value;
    expect(r.stdout).toBe(
      [
        `task_id=${id} kind=mission camp_slot=1 camp_branch=vexillum/${id}`,
        "status=running",
        `tmux: session=vx-fix-the-login-bug cwd=${t.camp_path} branch=vexillum/${id} gate=ok`,
        "still running past the quick-settle probe - the sentinel will record its final status",
        "",
      ].join("\n"),
    );
    expect(t).toMatchObject({ status: "running", backend: "tmux", tmux_target: "vx-fix-the-login-bug" });
    expect(f.tmux("show-environment", "-t", "=vx-fix-the-login-bug", "VX_TASK_ID").out).toBe(`VX_TASK_ID=${id}\n`);
    const screen = () => f.tmux("capture-pane", "-p", "-J", "-t", "=vx-fix-the-login-bug:", "-S", "-200").out;
    await waitFor(() => screen().includes("fix the login bug"), 10_000, "the pasted prompt");
    expect(screen().split("fix the login bug").length - 1).toBe(1);
    expect(JSON.parse(readFileSync(join(f.paths.statesDir, `${id}.json`), "utf8"))).toMatchObject({ state: "working", source: "claude" });
    // The harness was given its state hooks from outside the camp.
    const settings = join(f.paths.stateDir, "hooks", id, "claude-settings.json");
    expect(JSON.parse(readFileSync(settings, "utf8")).hooks.Stop[0].hooks[0].command).toContain("report idle");
    expect(readFileSync(join(f.home, "argv"), "utf8")).toContain(`--settings\n${settings}\n`);

    // The soldier commits and its harness's Stop hook reports idle: the sentinel settles it.
    git(t.camp_path!, "commit", "-q", "--allow-empty", "-m", "fixed");
    expect((await f.run(["report", "idle"], { cwd: t.camp_path! })).code).toBe(0);
    const done = await waitFor(() => listTasks(f.paths).find((l) => l.value.status === "done")?.value, 30_000, "the task done");
    expect(done.output).toContain("fix the login bug");
    // The wake is committed just after the task's save (WAK-05).
    await waitFor(() => existsSync(join(f.paths.wakesDir, `${id}.json`)), 30_000, "the wake");
    expect(readdirSync(f.paths.wakesDir).filter((n) => n.endsWith(".json"))).toEqual([`${id}.json`]);
    expect(git(t.camp_path!, "status", "--porcelain")).toBe("");

    git(f.project, "merge", "-q", "--ff-only", `vexillum/${id}`);
    const struck = await f.run(["strike", id]);
    expect({ code: struck.code, stderr: struck.stderr }).toEqual({ code: 0, stderr: "" });
    expect(struck.stdout).toContain("tmux session closed");
    expect(f.tmux("has-session", "-t", "=vx-fix-the-login-bug").code).not.toBe(0);
    expect(readPool(f.paths).slots.filter((s) => s.leased_by)).toEqual([]);
  });

  test("the isolation gate: a harness not in its camp fails the task and its session is killed", async () => {
    await using f = await tmuxField("#!/bin/sh\ncd /\nprintf '\\342\\235\\257 \\n'\nexec cat\n");
    const r = await f.run(["dispatch", "fix it", "--backend", "tmux"]);
    expect(r.code).toBe(1);
    const t = listTasks(f.paths)[0]!.value;
    const gate = `isolation gate failed: cwd=/ branch=vexillum/${t.id} expected_cwd=${t.camp_path} expected_branch=vexillum/${t.id}`;
    expect(r.stderr).toContain(`vx: ${gate}\n`);
    expect(t).toMatchObject({ status: "failed", output: `[vexillum] ${gate} - marked failed.` });
    expect(f.tmux("has-session", "-t", "=vx-fix-it").code).not.toBe(0);
  });

  test("a harness that exits before it is ready fails the task", async () => {
    // As a real harness does, it runs a moment before it gives up (tmux loses the output of a program that exits at once).
    await using f = await tmuxField(`#!/bin/sh\necho 'Error: not logged in (token sk-ant-abcdefghijklmnop0123 expired)'\n${Bun.which("sleep")} 0.5\nexit 3\n`);
    // The pane starts vx's launcher before the harness: a 3 s readiness wait still sees it exit.
    f.env.VX_TIME_SCALE = "0.1";
    const r = await f.run(["dispatch", "fix it", "--backend", "tmux"]);
    expect(r.code).toBe(1);
    // What it printed last is told, redacted; its session is gone afterwards.
    expect(r.stderr).toContain('vx: claude exited in its tmux session before it became ready (its last output: "Error: not logged in (token [redacted-secret] expired)")\n');
    expect(f.tmux("has-session", "-t", "=vx-fix-it").code).not.toBe(0);
    expect(existsSync(f.paths.statesDir) ? readdirSync(f.paths.statesDir) : []).toEqual([]);
  });

  test("a project whose directory ends in ';' and holds tmux format text dispatches into its own camp", async () => {
    // tmux read a trailing `;` of an argument as the end of its command, and expands `-c` as a format.
    const name = "shop #{session_id} #(touch ran-by-tmux);";
    await using f = await tmuxField(undefined, { name });
    const r = await f.run(["dispatch", "fix it", "--backend", "tmux"]);
    expect({ code: r.code, stderr: r.stderr.replace(/^vx: auto-started sentinel.*\n/m, "") }).toEqual({ code: 0, stderr: "" });
    const t = listTasks(f.paths)[0]!.value;
    expect(t.camp_path!.endsWith(`/${name}`)).toBe(true);
    expect(r.stdout).toContain(`tmux: session=vx-fix-it cwd=${t.camp_path} branch=vexillum/${t.id} gate=ok\n`);
    // The harness was given its argv whole, and no `#(...)` ran anywhere.
    expect(readFileSync(join(f.home, "argv"), "utf8")).toContain("--settings\n");
    // (tmux runs a format's command in the server's HOME, the sandbox's.)
    const ran = Bun.spawnSync(["find", join(f.home, ".."), "-name", "ran-by-tmux"], { stdout: "pipe", stderr: "ignore" });
    expect(ran.stdout.toString()).toBe("");
  });
});
