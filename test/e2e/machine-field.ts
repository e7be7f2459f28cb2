/**
 * A commander's machine and a second "machine" behind a real sshd on 127.0.0.1 (test/sshd-real.ts): two HOMEs, two
 * state roots, the machine's own tmux server and a stand-in Claude soldier there that works until the test writes
 * its go-file; `vx init` here and `vx machine add box`. Disposal stops both sentinels, the machine's tmux server,
 * the sshd and its sessions, and removes both sandboxes.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "bun:test";
import { TRAILER } from "../../src/lifecycle/evidence";
import { processTable, sandbox, stopSentinels, vx, waitFor, writeExecutable } from "../helpers";
import { type Sshd, startSshd } from "../sshd-real";
import { sandboxPath } from "../tool-path";

// Ready, then working on the prompt until its go-file appears (after dispatch's quick-settle probe, so the news
// travels as a wake), then one commit, the closing lines and its idle report.
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

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

function stateDir(home: string): string {
  const dir = join(home, ".vexillum", "projects");
  const name = readdirSync(dir).find((n) => n.startsWith("project-"));
  if (!name) throw new Error(`no project state dir in ${dir}`);
  return join(dir, name);
}

export type MachineField = Awaited<ReturnType<typeof machineField>>;

/** `scale`: both machines' VX_TIME_SCALE (0.1 unless a test of long scaled waits asks for less). */
export async function machineField(scale = "0.1") {
  const sb = sandbox();
  const remote = sandbox({ git: false });
  // Under its harness's name: tmux names a pane's program by its first word, and a script shows as `sh`, which the
  // machine's sentinel reads as the harness gone (interrupted) once the soldier waits more than a moment.
  writeFileSync(join(remote.bin, "soldier.sh"), SOLDIER);
  writeExecutable(join(remote.bin, "claude"), '#!/usr/bin/env bash\nexec -a claude bash "${0%/*}/soldier.sh" "$@"\n');
  let sshd: Sshd | undefined;
  // The machine's own tmux server (its TMUX_TMPDIR is its HOME): what a reboot there takes away.
  const killMachineTmux = () => {
    Bun.spawnSync(["tmux", "kill-server"], { env: { ...remote.env, TMUX_TMPDIR: remote.home }, stdout: "ignore", stderr: "ignore" });
  };
  const dispose = async () => {
    await stopSentinels(sb.home);
    await stopSentinels(remote.home);
    killMachineTmux();
    await sshd?.stop();
    sb[Symbol.dispose]();
    remote[Symbol.dispose]();
  };
  try {
    // The machine's own tmux server and time scale; IS_SANDBOX lets a Claude soldier start as root (CI).
    sshd = await startSshd({
      localHome: sb.home,
      remoteHome: remote.home,
      remotePath: sandboxPath(remote.bin),
      remoteEnv: { TMUX_TMPDIR: remote.home, VX_TIME_SCALE: scale, IS_SANDBOX: "1" },
    });
    const env = { ...sb.env, PATH: `${sshd.binDir}:${sb.env.PATH}`, VX_TIME_SCALE: scale };
    expect((await vx(["init", "--yes", "--backend", "tmux", "--harness", "claude"], { cwd: sb.project, env })).code).toBe(0);
    expect((await vx(["machine", "add", "box", sshd.destination], { cwd: sb.project, env })).code).toBe(0);
    const field = {
      sb,
      remote,
      sshd,
      env,
      readJson,
      localDir: () => stateDir(sb.home),
      remoteDir: () => stateDir(remote.home),
      localWake: (id: string) => join(stateDir(sb.home), "wakes", `${id}.json`),
      remoteWake: (id: string) => join(stateDir(remote.home), "wakes", `${id}.json`),
      mirror: (id: string) => readJson(join(stateDir(sb.home), "tasks", `${id}.json`)),
      /** Lets the soldier of `id` finish. */
      go: (id: string) => writeFileSync(join(remote.home, `go-${id}`), ""),
      /** This HOME's relay processes (ssh running `vx machine relay` there; its control path names the HOME). */
      relays: () => processTable().filter(([, cmd]) => /^\S*ssh .* 'machine' 'relay' /.test(cmd) && cmd.includes(`ControlPath=${sb.home}/`)),
      /**
       * This HOME's connection to the machine: ssh's control master (`ssh: <control path> [mux]`). The relay's ssh is
       * a client of it that hands its stdin and stdout to the master, so the link is the master, not that client.
       */
      master: () => processTable().find(([, cmd]) => cmd.startsWith(`ssh: ${join(sb.home, ".vexillum", "ssh")}/`) && cmd.endsWith(" [mux]"))?.[0],
      /** The machine-side ends of the relay. */
      servers: () => processTable().filter(([, cmd]) => cmd.startsWith(`${join(remote.home, ".local", "bin", "vx")} machine relay `)),
      killMachineTmux,
      sentinelPid: (home: string) => Number(readFileSync(join(home, ".vexillum", "sentinel.pid"), "utf8").trim()),
      async dispatchOn(prompt: string): Promise<string> {
        const r = await vx(["dispatch", "--on", "box", prompt], { cwd: sb.project, env });
        // The sentinels started here and there say so; nothing else is said.
        expect(r.stderr.replace(/^(\[box\] )?vx: auto-started sentinel .*\n/gm, "")).toBe("");
        expect(r.stdout).toMatch(/^task_id=[0-9a-f]{16} kind=mission camp_slot=\d+ camp_branch=vexillum\/[0-9a-f]{16}\nstatus=running\n/);
        expect(r.stdout).toEndWith("machine=box\n");
        expect(r.code).toBe(0);
        return /task_id=([0-9a-f]{16})/.exec(r.stdout)?.[1] as string;
      },
      /** The wake of `id` arrives here once and is gone there: "delivered" (deleted) here after, as a drain would. */
      async relayedOnce(id: string, status = "done"): Promise<void> {
        await waitFor(() => existsSync(field.localWake(id)), 60_000, `the wake of ${id} relayed here`);
        const wake = readJson(field.localWake(id));
        expect(wake).toMatchObject({ task_id: id, new_status: status });
        await waitFor(() => !existsSync(field.remoteWake(id)), 30_000, `the wake of ${id} deleted there once acked`);
        expect(field.mirror(id).relayed_wake_at).toBe(wake.detected_at);
      },
      [Symbol.asyncDispose]: dispose,
    };
    return field;
  } catch (err) {
    await dispose();
    throw err;
  }
}

/** The field of a test file: made before its tests, disposed after them; `set` receives it. */
export function useMachineField(set: (f: MachineField) => void, scale?: string): void {
  let made: MachineField | undefined;
  beforeAll(async () => {
    made = await machineField(scale);
    set(made);
  }, 60_000);
  afterAll(async () => {
    await made?.[Symbol.asyncDispose]();
  });
}

/** A signal to a process the field found (an ssh, a relay end, a sentinel); none found is the test's failure. */
export function signal(pid: number | undefined, sig: NodeJS.Signals = "SIGKILL"): void {
  if (pid === undefined) throw new Error("no such process");
  process.kill(pid, sig);
}
