// MCH-06..08 over a real sshd on 127.0.0.1: `vx dispatch --on` starts the soldier in a real tmux on the "machine"
// (a second HOME, its own state root and sentinel), and its wake comes back through the local sentinel's relay:
// committed here before it is deleted there, once, also when the local sentinel was killed in between.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TRAILER } from "../../src/lifecycle/evidence";
import { type Sandbox, VX_BIN, alive, git, processTable, sandbox, stopSentinels, vx, waitFor, writeExecutable } from "../helpers";
import { type Sshd, startSshd } from "../sshd-real";
import { sandboxPath } from "../tool-path";

// The soldier: ready, then working on the prompt until the test lets it finish (after dispatch's quick-settle probe,
// so the news travels as a wake), then one commit, the closing lines and its idle report.
const SOLDIER = `#!/bin/sh
stty -echo
printf '\\342\\235\\257 \\n'
IFS= read -r first
"$HOME/.local/bin/vx" report working
while [ ! -e "$HOME/go-$VX_TASK_ID" ]; do sleep 0.1; done
git -c user.name=soldier -c user.email=soldier@vx.invalid commit -q --allow-empty -m "remote work"
printf '%s\\n' '${TRAILER}' 'Fixed it.'
"$HOME/.local/bin/vx" report idle
exec cat
`;

let sb: Sandbox;
let remote: Sandbox;
let sshd: Sshd;
let env: Record<string, string>;

beforeAll(async () => {
  sb = sandbox();
  remote = sandbox({ git: false });
  writeExecutable(join(remote.bin, "claude"), SOLDIER);
  // The machine's own tmux server and time scale; IS_SANDBOX lets a Claude soldier start as root (CI).
  sshd = await startSshd({
    localHome: sb.home,
    remoteHome: remote.home,
    remotePath: sandboxPath(remote.bin),
    remoteEnv: { TMUX_TMPDIR: remote.home, VX_TIME_SCALE: "0.1", IS_SANDBOX: "1" },
  });
  env = { ...sb.env, PATH: `${sshd.binDir}:${sb.env.PATH}`, VX_TIME_SCALE: "0.1" };
  expect((await vx(["init", "--yes", "--backend", "tmux", "--harness", "claude"], { cwd: sb.project, env })).code).toBe(0);
  const added = await vx(["machine", "add", "box", sshd.destination], { cwd: sb.project, env });
  expect(added.code).toBe(0);
}, 60_000);

afterAll(async () => {
  await stopSentinels(sb?.home ?? "/nonexistent");
  await stopSentinels(remote?.home ?? "/nonexistent");
  Bun.spawnSync(["tmux", "kill-server"], { env: { ...remote?.env, TMUX_TMPDIR: remote?.home ?? "" }, stdout: "ignore", stderr: "ignore" });
  await sshd?.stop();
  sb?.[Symbol.dispose]();
  remote?.[Symbol.dispose]();
});

const stateDir = (home: string, pick: (name: string) => boolean) => {
  const dir = join(home, ".vexillum", "projects");
  const name = readdirSync(dir).find(pick);
  if (!name) throw new Error(`no project state dir in ${dir}`);
  return join(dir, name);
};
const localDir = () => stateDir(sb.home, (n) => n.startsWith("project-"));
const remoteDir = () => stateDir(remote.home, (n) => n.startsWith("project-"));
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

async function dispatchOn(prompt: string): Promise<string> {
  const r = await vx(["dispatch", "--on", "box", prompt], { cwd: sb.project, env });
  // The sentinels started here and there say so; nothing else is said.
  expect(r.stderr.replace(/^(\[box\] )?vx: auto-started sentinel .*\n/gm, "")).toBe("");
  expect(r.stdout).toMatch(/^task_id=[0-9a-f]{16} kind=mission camp_slot=\d+ camp_branch=vexillum\/[0-9a-f]{16}\nstatus=running\n/);
  expect(r.stdout).toEndWith("machine=box\n");
  expect(r.code).toBe(0);
  return /task_id=([0-9a-f]{16})/.exec(r.stdout)?.[1] as string;
}

/** The local sentinel's relay processes for the machine (ssh running `vx machine relay`). */
const relays = () => processTable().filter(([, cmd]) => /^\S*ssh .* 'machine' 'relay' /.test(cmd));

describe("a soldier on another machine (MCH-06..08)", () => {
  test("dispatch --on: the soldier works there; its done wake is committed here, then deleted there", async () => {
    const id = await dispatchOn("do the remote thing");
    const mirror = readJson(join(localDir(), "tasks", `${id}.json`));
    expect(mirror).toMatchObject({ id, status: "running", machine: "box", prompt: "do the remote thing" });
    expect(mirror.remote_project).toStartWith(join(remote.home, ".local", "share", "vexillum", "remotes"));
    expect(mirror.camp_path).toBeUndefined();
    // The prompt never rode on a command line: it reached the machine on stdin.
    expect(readJson(join(remoteDir(), "tasks", `${id}.json`)).prompt).toBe("do the remote thing");

    writeFileSync(join(remote.home, `go-${id}`), "");
    const wakePath = join(localDir(), "wakes", `${id}.json`);
    await waitFor(() => existsSync(wakePath), 60_000, "the wake relayed here");
    const wake = readJson(wakePath);
    expect(wake).toMatchObject({ task_id: id, old_status: "running", new_status: "done" });
    await waitFor(() => !existsSync(join(remoteDir(), "wakes", `${id}.json`)), 20_000, "the wake deleted there once acked");
    expect(readJson(join(localDir(), "tasks", `${id}.json`))).toMatchObject({ status: "done", relayed_wake_at: wake.detected_at, machine: "box" });
    expect(relays().length).toBe(1);
    const status = await vx(["status"], { cwd: sb.project, env });
    expect(status.stdout).toMatch(new RegExp(`^${id}  mission  done .*\n    on machine box$`, "m"));
    // A command that does not reach the machine yet is refused by name, nothing touched (MCH-09).
    const prompt = await vx(["prompt", id, "more"], { cwd: sb.project, env });
    expect(prompt.stderr).toBe(`vx: task ${id} runs on machine box, and vx prompt does not reach other machines yet - run it there, in ${mirror.remote_project}\n`);
    expect(prompt.code).toBe(1);
  }, 120_000);

  test("land: the mission's branch fetched from its camp there, fast-forwarded here, then its camp struck there", async () => {
    const id = (readdirSync(join(localDir(), "tasks")).find((n) => n.endsWith(".json")) as string).slice(0, -5);
    const before = git(sb.project, "rev-parse", "HEAD");
    const land = await vx(["land", id], { cwd: sb.project, env });
    expect(land.stdout).toContain(`landed: fast-forwarded ${sb.project} to vexillum/${id}`);
    expect(land.stdout).toContain("struck: camp returned to the pool");
    expect(land.code).toBe(0);
    expect(git(sb.project, "log", "-1", "--format=%s")).toBe("remote work");
    expect(git(sb.project, "rev-parse", "HEAD^")).toBe(before);
    // The fetched branch is gone here; the camp there is back in its pool, its branch deleted.
    expect(git(sb.project, "branch", "--list", `vexillum/${id}`)).toBe("");
    const pool = readJson(join(remoteDir(), "camps", "pool.json"));
    expect(pool.slots.some((slot: { leased_by?: string }) => slot.leased_by === id)).toBe(false);
    expect(readJson(join(localDir(), "tasks", `${id}.json`)).status).toBe("done");
  }, 120_000);

  test("the local sentinel killed -9 while the soldier finishes: the wake waits there, then comes once", async () => {
    const id = await dispatchOn("another remote thing");
    const pid = Number(readFileSync(join(sb.home, ".vexillum", "sentinel.pid"), "utf8").trim());
    expect(alive(pid)).toBe(true);
    process.kill(pid, "SIGKILL");
    await waitFor(() => !alive(pid), 10_000, "the sentinel gone");
    await waitFor(() => relays().length === 0, 20_000, "its relay's ssh gone with it");
    writeFileSync(join(remote.home, `go-${id}`), "");
    const remoteWake = join(remoteDir(), "wakes", `${id}.json`);
    await waitFor(() => existsSync(remoteWake), 60_000, "the wake written there");
    const localWake = join(localDir(), "wakes", `${id}.json`);
    expect(existsSync(localWake)).toBe(false);
    const sentinel = Bun.spawn([VX_BIN, "sentinel"], { cwd: sb.home, env, stdout: "ignore", stderr: "ignore" });
    try {
      await waitFor(() => existsSync(localWake), 60_000, "the wake relayed after the restart");
      await waitFor(() => !existsSync(remoteWake), 20_000, "and deleted there");
      expect(readJson(localWake)).toMatchObject({ task_id: id, new_status: "done" });
      expect(relays().length).toBe(1);
    } finally {
      await stopSentinels(sb.home, [sentinel.pid]);
    }
  }, 120_000);
});
