// MCH-06..10 with the real Claude Code as the soldier on another machine: a second HOME (its own state root, its own
// tmux server) behind the real sshd on 127.0.0.1, the same mock model server. `vx dispatch --on` starts it there in
// the default permission mode, vx answers its folder-trust dialog there, its mission commits; its done wake is
// relayed here once, and `vx land` brings the commit here.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { git, stopSentinels, vx, waitFor } from "../helpers";
import { type Sshd, startSshd } from "../sshd-real";
import { claudeEnv, seedClaude } from "./claude-setup";
import { FINAL, SCALE, workFile } from "./fleet";
import { isToolResult } from "./soldier-kit";
import { type Fleet, commitAndHold, fleet, shellCall } from "./tmux-fleet";

let f: Fleet;
let sshd: Sshd;
let machineHome: string;
let machineTmux: string;
let env: Record<string, string>;

beforeAll(async () => {
  f = await fleet("claude", { prepare: (x) => (seedClaude(x.home, []), claudeEnv(x.models.url)) });
  machineHome = join(dirname(f.home), "machine-home");
  machineTmux = join(dirname(f.home), "machine-tmux");
  mkdirSync(machineHome, { recursive: true });
  mkdirSync(machineTmux, { recursive: true });
  // The machine's Claude Code has finished its onboarding, as the one here; nothing is trusted there either. Its user
  // has a git identity of their own (no system config of this machine's is read).
  seedClaude(machineHome, []);
  writeFileSync(join(machineHome, ".gitconfig"), "[user]\n\tname = machine user\n\temail = machine@vx.invalid\n");
  sshd = await startSshd({
    localHome: f.home,
    remoteHome: machineHome,
    remotePath: f.env.PATH as string,
    remoteEnv: { ...claudeEnv(f.models.url), VX_TIME_SCALE: SCALE, IS_SANDBOX: "1", GIT_CONFIG_NOSYSTEM: "1", TMUX_TMPDIR: machineTmux, TERM: "xterm-256color", LANG: "C.UTF-8" },
  });
  env = { ...f.env, PATH: `${sshd.binDir}:${f.env.PATH}` } as Record<string, string>;
  const added = await vx(["machine", "add", "box", sshd.destination], { cwd: f.project, env });
  expect(added.code).toBe(0);
}, 120_000);

afterAll(async () => {
  await stopSentinels(machineHome ?? "/nonexistent");
  Bun.spawnSync(["tmux", "kill-server"], { env: { PATH: f?.env.PATH ?? "", TMUX_TMPDIR: machineTmux ?? "" }, stdout: "ignore", stderr: "ignore" });
  await sshd?.stop();
  await f?.closeFleet();
});

describe("a real Claude Code soldier on another machine (MCH-06..10)", () => {
  test("dispatch --on: the mission commits there, its done wake is relayed here once, and land brings its commit here", async () => {
    const m = f.mission("remote", "write the work file and commit it", (r) => (isToolResult(r) ? { text: FINAL } : { tool: shellCall("claude", commitAndHold(f, "remote")) }));
    const r = await vx(["dispatch", "--on", "box", "--backend", "tmux", "--harness", "claude", m.prompt], { cwd: f.project, env });
    const id = /^task_id=([0-9a-f]{16})/m.exec(r.stdout)?.[1];
    expect({ code: r.code, id: Boolean(id) }).toEqual({ code: 0, id: true });
    const t0 = Date.now();
    f.open("remote");
    await waitFor(() => existsSync(f.wakePath(id as string)), 120_000, "the relayed wake here");
    console.log(`compat: claude soldier on another machine: gate opened -> wake relayed here ${Date.now() - t0} ms`);
    const wake = JSON.parse(await Bun.file(f.wakePath(id as string)).text());
    expect(wake).toMatchObject({ task_id: id, old_status: "running", new_status: "done" });
    expect(f.task(id as string)).toMatchObject({ status: "done", machine: "box", relayed_wake_at: wake.detected_at });
    expect(f.task(id as string).output).toContain(FINAL);
    const land = await vx(["land", id as string], { cwd: f.project, env });
    expect(land.code).toBe(0);
    expect(git(f.project, "log", "-1", "--format=%s")).toBe("work");
    expect(existsSync(join(f.project, workFile("remote")))).toBe(true);
  }, 240_000);
});
