// STA-10 camp setup under pressure: setup commands that leave children behind or exit 124 by
// themselves, a caller's git location variables, and secrets in setup output.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VX_BIN, alive, git, waitFor } from "../helpers";
import { type Field, field, taskIdOf } from "./soldier-field";

const quiet = (stderr: string) => stderr.replace(/^vx: auto-started sentinel.*\n/m, "");

function setConfig(f: Field, extra: Record<string, unknown>): void {
  const path = join(f.project, ".vexillum", "config.json");
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), ...extra }, null, 2));
}

// What a test started and must not leave behind, even when it fails: background children the
// setup commands recorded (by pid file, checked to be a sleep; outside the field, which is gone
// by then), and a dispatch that never ended.
const pidFiles: string[] = [];
const dispatches: Bun.Subprocess[] = [];

function pidFileOutside(): string {
  const file = join(mkdtempSync(join(tmpdir(), "vx-setup-bg-")), "bg.pid");
  pidFiles.push(file);
  return file;
}

function isSleep(pid: number): boolean {
  const ps = Bun.spawnSync(["ps", "-o", "comm=", "-p", String(pid)], { stdout: "pipe", stderr: "ignore" });
  return ps.stdout.toString().trim().split("/").pop() === "sleep";
}

afterEach(async () => {
  for (const proc of dispatches.splice(0)) if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  for (const file of pidFiles.splice(0)) {
    const pid = existsSync(file) ? Number(readFileSync(file, "utf8").trim()) : 0;
    if (pid > 0 && alive(pid) && isSleep(pid)) process.kill(pid, "SIGKILL");
    rmSync(join(file, ".."), { recursive: true, force: true });
  }
});

/**
 * Runs `vx dispatch` like f.run, but a dispatch that has not ended after a generous bound is
 * killed and reported, so a hang fails the test instead of stalling the run.
 */
async function dispatchBounded(f: Field, prompt: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([VX_BIN, "dispatch", prompt], { cwd: f.project, env: f.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  dispatches.push(proc);
  const out = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await waitFor(() => proc.exitCode !== null || proc.signalCode !== null, 40_000, "the dispatch to end");
  const [stdout, stderr] = await out;
  return { code: proc.exitCode ?? -1, stdout, stderr };
}

/** The pid a setup command wrote to `file`: its background child. */
function childPid(file: string): number {
  const pid = Number(readFileSync(file, "utf8").trim());
  expect(pid).toBeGreaterThan(0);
  return pid;
}

describe("camp setup: a command's children", () => {
  test("one that leaves a child in the background holding its output lets the dispatch finish, and the child goes", async () => {
    await using f = await field();
    const pidFile = pidFileOutside();
    setConfig(f, { camp_setup: [["sh", "-c", 'sleep 1000 & echo $! > "$1"; echo started; exit 0', "sh", pidFile]] });
    const r = await dispatchBounded(f, "fix it");
    expect({ code: r.code, stderr: quiet(r.stderr) }).toEqual({ code: 0, stderr: "" });
    const id = taskIdOf(r.stdout);
    expect(f.task(id).status).not.toBe("failed");
    const pid = childPid(pidFile);
    await waitFor(() => !alive(pid), 10_000, `the background sleep ${pid} to be gone`);
    expect(readFileSync(join(f.paths.stateDir, "logs", `${id}-setup.log`), "utf8")).toContain("started\nexited 0\n");
  });

  test("one past camp_setup_timeout is killed together with the child it started", async () => {
    await using f = await field();
    const pidFile = pidFileOutside();
    // 250 s at the field's time scale of 0.02: 5 s, ample to start the child and write its pid.
    setConfig(f, { camp_setup: [["sh", "-c", 'sleep 1000 & echo $! > "$1"; wait', "sh", pidFile]], camp_setup_timeout: 250 });
    const r = await dispatchBounded(f, "fix it");
    expect(r.code).toBe(1);
    expect(quiet(r.stderr)).toEndWith(" timed out after 250s\n");
    expect(f.task(taskIdOf(r.stdout)).status).toBe("failed");
    const pid = childPid(pidFile);
    await waitFor(() => !alive(pid), 10_000, `the background sleep ${pid} to be gone`);
  });

  test("one that exits 124 by itself is reported as that exit, not as a timeout", async () => {
    await using f = await field();
    setConfig(f, { camp_setup: [["sh", "-c", "echo deliberately >&2; exit 124"]] });
    const r = await f.run(["dispatch", "fix it"]);
    expect(r.code).toBe(1);
    expect(quiet(r.stderr)).toBe('vx: camp setup failed: sh -c "echo deliberately >&2; exit 124" exited 124: deliberately\n');
    const id = taskIdOf(r.stdout);
    expect(readFileSync(join(f.paths.stateDir, "logs", `${id}-setup.log`), "utf8")).toContain("deliberately\nexited 124\n");
  });
});

describe("camp setup: the log", () => {
  test("a token the command prints never reaches the setup log", async () => {
    await using f = await field();
    const token = `ghp_${"aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"}`;
    expect(token.length).toBe(40);
    setConfig(f, { camp_setup: [["sh", "-c", `echo "export GITHUB_TOKEN=${token}"; echo "token=${token}" >&2`]] });
    const r = await f.run(["dispatch", "fix it"]);
    expect({ code: r.code, stderr: quiet(r.stderr) }).toEqual({ code: 0, stderr: "" });
    const log = readFileSync(join(f.paths.stateDir, "logs", `${taskIdOf(r.stdout)}-setup.log`), "utf8");
    expect(log).toContain("exited 0\n");
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.slice(4, 20));
  });
});

describe("camp setup: .worktreeinclude under a caller's git variables", () => {
  test("GIT_DIR, GIT_WORK_TREE and a GIT_INDEX_FILE of its own from a git hook change nothing", async () => {
    await using f = await field();
    const p = f.project;
    writeFileSync(join(p, ".gitignore"), ".env*\nsecrets.json\n");
    writeFileSync(join(p, "secrets.json"), '{"v":"committed"}\n');
    git(p, "add", ".gitignore");
    git(p, "add", "-f", "secrets.json");
    git(p, "commit", "-q", "-m", "ignores");
    // Untracked in the checkout since, but tracked in every camp: never to be written there.
    git(p, "rm", "-q", "--cached", "secrets.json");
    writeFileSync(join(p, "secrets.json"), '{"v":"checkout"}\n');
    writeFileSync(join(p, ".env"), "FROM=project\n");
    writeFileSync(join(p, ".worktreeinclude"), ".env*\nsecrets.json\n");
    // As a git hook of the project (or `git rebase -x`) runs vx: the location variables set, and
    // an index of its own (a commit's temporary one) in which .env is tracked and secrets.json not.
    const index = join(f.home, "hook-index");
    const added = Bun.spawnSync(["git", "-C", p, "add", "-f", ".env"], { env: { ...process.env, GIT_INDEX_FILE: index }, stderr: "pipe" });
    expect(added.exitCode).toBe(0);
    const env = { ...f.env, GIT_DIR: join(p, ".git"), GIT_WORK_TREE: p, GIT_INDEX_FILE: index };
    const r = await f.run(["dispatch", "fix it"], { env });
    // secrets.json out of the index: a change the camp will not have, and dispatch says so.
    expect({ code: r.code, stderr: quiet(r.stderr) }).toEqual({
      code: 0,
      stderr: `vx: warning: ${p} has uncommitted changes the soldier's camp will not have (it starts from main's last commit) - commit them first if the soldier needs them\n`,
    });
    const id = taskIdOf(r.stdout);
    const camp = f.task(id).camp_path!;
    expect(readFileSync(join(camp, ".env"), "utf8")).toBe("FROM=project\n");
    expect(readFileSync(join(camp, "secrets.json"), "utf8")).toBe('{"v":"committed"}\n');
    expect(git(camp, "status", "--porcelain")).toBe("");
    expect(readFileSync(join(f.paths.stateDir, "logs", `${id}-setup.log`), "utf8")).toContain("skipped secrets.json: tracked in the camp, left as it is\n");
  });
});
