// `vx dispatch` end to end: validation (CMD-DISPATCH-01/02), the stdout lines (CMD-DISPATCH-04),
// the submitted text (CMD-DISPATCH-05) and the quick-settle probe (CMD-DISPATCH-06).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { LISTED_HARNESS_NAMES } from "../../src/harnesses/names";
import { pausePath, reportPath } from "../../src/lifecycle/observe";
import { TRAILER } from "../../src/lifecycle/evidence";
import { dispatchText } from "../../src/soldiers/prompt-text";
import { activeWaits, agentArgv, appendPaneText, recordedPrompts, setAgentStatus } from "../fakes/herdr-control";
import { VX_BIN, git, waitFor } from "../helpers";
import { type Field, field, stillRunningLines, taskIdOf } from "./soldier-field";

function nothingCreated(f: Field): void {
  expect(existsSync(f.paths.tasksDir) ? readdirSync(f.paths.tasksDir).filter((n) => n.endsWith(".json")) : []).toEqual([]);
  expect(existsSync(f.paths.poolFile)).toBe(false);
}

describe("vx dispatch: bad input", () => {
  test("an empty prompt is a usage error", async () => {
    await using f = await field();
    for (const args of [["dispatch"], ["dispatch", "  ", ""], ["dispatch", "--kind", "scout"]]) {
      const r = await f.run(args);
      expect(r.code).toBe(64);
      expect(r.stderr).toStartWith("vx: missing prompt\nUsage: vx dispatch <prompt...>");
    }
    nothingCreated(f);
  });

  test.each([
    [["--kind", "raid"], 'unknown kind "raid", expected mission or scout'],
    [["--harness", "aider"], `unknown harness "aider", expected one of ${LISTED_HARNESS_NAMES.join(", ")}`],
    [["--backend", "screen"], 'unknown backend "screen", expected herdr or tmux'],
    [["--model", "gpt"], 'unknown model "gpt" (expected one of haiku, sonnet, opus, fable)'],
    [["--effort", "huge"], 'unknown effort "huge" (expected one of low, medium, high, xhigh, max)'],
    [["--harness", "claude", "--model", "gpt-5"], 'unknown model "gpt-5" (expected one of haiku, sonnet, opus, fable)'],
    [["--harness", "opencode", "--effort", "high"], "--effort is not supported for harness opencode"],
    [["--harness", "codex", "--model", "gpt-5; rm -rf ~"], 'invalid model "gpt-5; rm -rf ~": use only letters, digits and . _ : / @ + = -'],
    [["--harness", "pi", "--effort", "$(whoami)"], 'invalid effort "$(whoami)": use only letters, digits and . _ : / @ + = -'],
  ])("%p is refused with exit 64", async (flags, message) => {
    await using f = await field();
    const r = await f.run(["dispatch", "fix it", ...flags]);
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith(`vx: ${message}\nUsage: vx dispatch`);
    nothingCreated(f);
  });

  test("a prompt that starts with a bullet is a prompt, not an unknown flag", async () => {
    await using f = await field();
    const r = await f.run(["dispatch", "- fix the list"]);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(f.task(taskIdOf(r.stdout)).prompt).toBe("- fix the list");
  });

  test("a prompt over 100000 bytes is refused with exit 1", async () => {
    await using f = await field();
    let r = await f.run(["dispatch", "x".repeat(100_001)]);
    expect(r).toMatchObject({ code: 1, stdout: "", stderr: "vx: the prompt is too long (100001 bytes, at most 100000) - write the long part to a file in the project and point the soldier at it\n" });
    r = await f.run(["dispatch", "é".repeat(50_001)]);
    expect(r.stderr).toBe("vx: the prompt is too long (100002 bytes, at most 100000) - write the long part to a file in the project and point the soldier at it\n");
    expect((await f.run(["dispatch", "--harness", "codex", "y".repeat(100_001)])).code).toBe(1);
    nothingCreated(f);
  });

  test("outside a herdr pane", async () => {
    await using f = await field();
    const { HERDR_WORKSPACE_ID: _, ...env } = f.env;
    const r = await f.run(["dispatch", "fix it"], { env });
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: "vx: HERDR_WORKSPACE_ID is not set - run vx from inside a herdr pane, or use --backend tmux (vx init --backend tmux makes it this project's default)\n",
    });
    nothingCreated(f);
  });

  test("a harness that is not installed is refused before a task, a camp or a sentinel exists", async () => {
    await using f = await field();
    rmSync(join(f.bin, "codex"));
    const r = await f.run(["dispatch", "--harness", "codex", "fix it"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: codex not found in PATH, needed to run Codex soldiers - install Codex (or put codex on PATH), or dispatch with another --harness\n" });
    nothingCreated(f);
    expect(existsSync(join(f.home, ".vexillum", "sentinel.pid"))).toBe(false);
    // As root without IS_SANDBOX, the missing program is still the first thing said.
    rmSync(join(f.bin, "claude"));
    const { IS_SANDBOX: _, ...env } = f.env;
    const root = await f.run(["dispatch", "fix it"], { env });
    expect(root.stderr).toBe("vx: claude not found in PATH, needed to run Claude Code soldiers - install Claude Code (or put claude on PATH), or dispatch with another --harness\n");
  });

  test("from inside a camp, outside a project, and before init", async () => {
    await using f = await field();
    const camp = join(f.home, ".vexillum", "projects", "x-00000000", "camps", "1", "project");
    mkdirSync(camp, { recursive: true });
    let r = await f.run(["dispatch", "fix it"], { cwd: camp });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`vx: running from inside ${camp}, which looks like a vexillum-managed camp, not a project root - cd back to the real project and try again\n`);
    r = await f.run(["dispatch", "fix it"], { cwd: dirname(f.project) });
    expect(r.stderr).toBe("vx: current directory is not a git repository - run vx from inside your project's git checkout\n");
    await using bare = await field({ init: false });
    r = await bare.run(["dispatch", "fix it"]);
    expect(r).toMatchObject({ code: 1, stderr: "vx: project not initialized, run 'vx init' first\n" });
  });

  test("a repository with no commit yet gets a clear refusal, not git's error", async () => {
    await using f = await field();
    const fresh = join(f.home, "..", "fresh");
    mkdirSync(fresh);
    git(fresh, "init", "-q", "-b", "main");
    const init = await f.run(["init", "--yes"], { cwd: fresh });
    expect(init.code).toBe(0);
    const r = await f.run(["dispatch", "fix it"], { cwd: fresh });
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: main has no commit yet, and a soldier's camp is forked from it - commit something first, then dispatch\n" });
  });

  test("a detached HEAD", async () => {
    await using f = await field();
    git(f.project, "checkout", "-q", "--detach");
    const r = await f.run(["dispatch", "fix it"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: the project checkout is on a detached HEAD - check out the branch to dispatch from\n" });
    nothingCreated(f);
  });

  test("a branch whose name starts with '-' is refused in one line, never handed to git as an option", async () => {
    await using f = await field();
    // git itself refuses to make such a branch; a ref written directly still checks out.
    for (const name of ["-foo", "-f"]) {
      git(f.project, "update-ref", `refs/heads/${name}`, "HEAD");
      git(f.project, "symbolic-ref", "HEAD", `refs/heads/${name}`);
      const r = await f.run(["dispatch", "fix it"]);
      expect(r).toEqual({
        code: 1,
        stdout: "",
        stderr: `vx: the project checkout is on branch ${name}, a name git takes for an option - rename it (git branch -m -- ${name} <new-name>), then dispatch\n`,
      });
      nothingCreated(f);
    }
  });

  test("the tmux backend needs tmux on PATH", async () => {
    await using f = await field();
    const onlyGit = join(f.bin, "only-git");
    mkdirSync(onlyGit);
    symlinkSync(Bun.which("git") as string, join(onlyGit, "git"));
    symlinkSync(join(f.bin, "claude"), join(onlyGit, "claude"));
    const r = await f.run(["dispatch", "fix it", "--backend", "tmux"], { env: { ...f.env, PATH: onlyGit } });
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: tmux not found in PATH, needed for --backend tmux - install tmux (or put it on PATH), then run the command again\n" });
    nothingCreated(f);
  });
});

describe("vx dispatch", () => {
  test("prints the four lines, saves the task and submits the prompt with its blocks", async () => {
    await using f = await field();
    const r = await f.run(["dispatch", "fix", "the", "login", "bug"]);
    expect(r.code).toBe(0);
    const id = taskIdOf(r.stdout);
    const t = f.task(id);
    const name = "vx-fix-the-login-bug";
    expect(r.stdout).toBe(stillRunningLines(f, t, name));
    expect(r.stderr).toMatch(/^vx: auto-started sentinel \(pid \d+\), logging to .*sentinel\.log\n$/);
    expect(t).toMatchObject({
      kind: "mission",
      prompt: "fix the login bug",
      status: "running",
      camp_slot: 1,
      camp_path: join(f.paths.campsDir, "1", "project"),
      camp_branch: `vexillum/${id}`,
      camp_base: "main",
      backend: "herdr",
      harness: "claude",
      herdr_workspace_id: f.ws.workspace_id,
      herdr_agent_name: name,
      commander_pane: f.ws.pane_id,
    });
    expect(t.commander_project).toBeUndefined();
    expect(git(t.camp_path as string, "rev-parse", "--abbrev-ref", "HEAD")).toBe(`vexillum/${id}`);
    expect(agentArgv(f.fh, name)).toEqual(["claude", "--dangerously-skip-permissions", "--prompt-suggestions", "false"]);

    const prompts = recordedPrompts(f.fh);
    expect(prompts).toHaveLength(1);
    expect(prompts[0].text).toBe(dispatchText({ prompt: "fix the login bug", kind: "mission", reportPath: reportPath(f.paths, t), pauseFile: pausePath(f.paths, t) }));
    expect(prompts[0].text).toEndWith(TRAILER);
    expect(prompts[0].text).toContain(`write ${join(f.paths.stateDir, "pauses", `${name}.md`)} with a first line`);
    expect(prompts[0].text).not.toContain("Before you finish");
  });

  test("uncommitted changes to tracked files: warned about first, the camp starts from the last commit", async () => {
    await using f = await field();
    const tracked = git(f.project, "ls-files").split("\n")[0]!;
    writeFileSync(join(f.project, tracked), "an edit not committed\n");
    const r = await f.run(["dispatch", "fix", "it"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toStartWith(
      `vx: warning: ${f.project} has uncommitted changes the soldier's camp will not have (it starts from main's last commit) - commit them first if the soldier needs them\n`,
    );
    const camp = f.task(taskIdOf(r.stdout)).camp_path as string;
    expect(git(camp, "status", "--porcelain")).toBe("");
  });

  test("on a terminal: the task line at once, then what it waits for, then the rest", async () => {
    await using f = await field();
    // The sentinel started (and later stopped) by the field, so the terminal run starts none.
    expect((await f.run(["dispatch", "first"])).code).toBe(0);
    // util-linux's script gives vx a terminal for stdout and stderr alike, in the order written.
    const script = Bun.which("script", { PATH: process.env.PATH ?? "/usr/bin:/bin" }) ?? "/usr/bin/script";
    const p = Bun.spawnSync([script, "-qec", `${VX_BIN} dispatch second`, "/dev/null"], { cwd: f.project, env: { ...f.env, SHELL: "/bin/sh" }, stdout: "pipe", stderr: "pipe" });
    const lines = p.stdout.toString().replaceAll("\r", "").split("\n");
    expect(p.exitCode).toBe(0);
    const head = lines.findIndex((l) => l.startsWith("task_id="));
    expect(lines[head + 1]).toMatch(/^vx: camp \/.+ ready; starting claude on herdr, then watching it take the prompt \(up to 45s\)$/);
    expect(lines[head + 2]).toBe("status=running");
  });

  test("model and effort reach the harness (codex, claude)", async () => {
    await using f = await field();
    let r = await f.run(["dispatch", "port it", "--harness", "codex", "--model", "gpt-5", "--effort", "high"]);
    expect(r.code).toBe(0);
    let t = f.task(taskIdOf(r.stdout));
    expect(agentArgv(f.fh, t.herdr_agent_name as string)).toEqual(["codex", "--dangerously-bypass-approvals-and-sandbox", "--model", "gpt-5", "-c", "model_reasoning_effort=high"]);
    expect(t).toMatchObject({ harness: "codex", model: "gpt-5", effort: "high" });
    r = await f.run(["dispatch", "tidy it", "--model", "opus", "--effort", "max"]);
    t = f.task(taskIdOf(r.stdout));
    expect(agentArgv(f.fh, t.herdr_agent_name as string)).toEqual(["claude", "--dangerously-skip-permissions", "--prompt-suggestions", "false", "--model", "opus", "--effort", "max"]);
    expect(t.camp_slot).toBe(2);
  });

  test("a scout whose report exists when its turn ends settles done", async () => {
    await using f = await field({ scale: "0.5" });
    const running = f.run(["dispatch", "survey the auth code", "--kind", "scout"]);
    const name = "vx-survey-the-auth-code";
    await waitFor(() => activeWaits(f.fh, name).length > 0, 10_000, "the prompt's wait");
    const [file] = readdirSync(f.paths.tasksDir).filter((n) => n.endsWith(".json"));
    const t = f.task(file.slice(0, -5));
    const report = reportPath(f.paths, t);
    expect(recordedPrompts(f.fh)[0].text).toContain(
      `\n\n---\nBefore you finish, write your final report as a single Markdown file at: ${report}\nCreate its parent directories if needed. 'vx strike' will refuse to strike your camp without it.\n\n---\nIf you have to wait`,
    );
    mkdirSync(dirname(report), { recursive: true });
    writeFileSync(report, "# Auth survey\n");
    appendPaneText(f.fh, name, "⏺ Report written.\n");
    setAgentStatus(f.fh, name, "idle");
    const r = await running;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("\nstatus=done\n");
    expect(r.stdout).toContain("\noutput:\n");
    expect(r.stdout).toEndWith("⏺ Report written.\n");
  });
});
