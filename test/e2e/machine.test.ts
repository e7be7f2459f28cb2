// MCH-01..05 against a real OpenSSH server on 127.0.0.1 (test/sshd-real.ts): the "machine" is a second HOME
// (its own state root) behind the user's own ssh config, as a person would set one up.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, VX_BIN, sandbox, taskFixture, vx, writeExecutable, writeTaskFile } from "../helpers";
import { sha256File } from "../release-kit";
import { type Sshd, startSshd } from "../sshd-real";
import { sandboxPath } from "../tool-path";
import { controlPath } from "../../src/machines/ssh";

let sb: Sandbox;
let remote: Sandbox;
let sshd: Sshd;
let env: Record<string, string>;

beforeAll(async () => {
  sb = sandbox();
  remote = sandbox({ git: false });
  sshd = await startSshd({ localHome: sb.home, remoteHome: remote.home, remotePath: sandboxPath(remote.bin) });
  env = { ...sb.env, PATH: `${sshd.binDir}:${sb.env.PATH}` };
});
afterAll(async () => {
  await sshd?.stop();
  sb?.[Symbol.dispose]();
  remote?.[Symbol.dispose]();
});

const run = (...args: string[]) => vx(["machine", ...args], { cwd: sb.project, env });
const remoteVx = () => join(remote.home, ".local", "bin", "vx");
const machinesJson = () => JSON.parse(readFileSync(join(sb.home, ".vexillum", "machines.json"), "utf8"));

describe("vx machine over a real sshd (MCH-01..05)", () => {
  test("an unreachable destination: one line naming ssh's reason, exit 1, nothing saved", async () => {
    const r = await run("add", "gone", "no-such-host.invalid");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^vx: cannot reach machine gone \(no-such-host\.invalid\): .*no-such-host\.invalid.* - check it with: ssh no-such-host\.invalid true\n$/);
    expect(existsSync(join(sb.home, ".vexillum", "machines.json"))).toBe(false);
  });

  test("add on a machine without vx: this binary is copied there (0755, the same bytes), then saved", async () => {
    const r = await run("add", "box", sshd.destination);
    expect(r.stderr).toBe(`vx: installing vx ${versionOfBin()} on box at ~/.local/bin/vx (it had none)\n`);
    expect(r.stdout).toMatch(new RegExp(`^machine box: ${sshd.destination} vx ${versionOfBin().replaceAll(".", "\\.")} linux-(x64|arm64)\\n$`));
    expect(r.code).toBe(0);
    expect(statSync(remoteVx()).mode & 0o777).toBe(0o755);
    expect(sha256File(remoteVx())).toBe(sha256File(VX_BIN));
    const doc = machinesJson();
    expect(doc.self_id).toMatch(/^[0-9a-f]{16}$/);
    expect(doc.machines.box).toMatchObject({ destination: sshd.destination, vx_path: remoteVx(), vx_version: versionOfBin() });
    expect(statSync(join(sb.home, ".vexillum", "ssh")).mode & 0o777).toBe(0o700);
  });

  test("add again: the same vx is kept, nothing copied; list and --json show it", async () => {
    const before = statSync(remoteVx()).mtimeMs;
    const r = await run("add", "box", sshd.destination);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(statSync(remoteVx()).mtimeMs).toBe(before);
    const list = await run("list");
    expect(list.stdout).toMatch(new RegExp(`^box  ${sshd.destination}  vx \\S+  linux-\\w+\\n$`));
    const json = JSON.parse((await run("list", "--json")).stdout);
    expect(Object.keys(json.machines)).toEqual(["box"]);
  });

  test("one control connection per machine, in the state root's ssh dir", async () => {
    const check = await sshd.ssh(["-o", `ControlPath=${controlPath(join(sb.home, ".vexillum"), sshd.destination)}`, "-O", "check", sshd.destination]);
    expect(check.stderr).toMatch(/Master running/);
  });

  test("another name for the same destination is its own entry; a taken name with another destination is refused", async () => {
    const r = await run("add", "box", "other-host");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`vx: machine box already exists (${sshd.destination}) - remove it first\n`);
  });

  test("a newer vx there is never downgraded without --force; with it, this one replaces it", async () => {
    const newer = "#!/bin/sh\necho 'vx 999.0.0'\n";
    writeFileSync(remoteVx(), newer);
    chmodSync(remoteVx(), 0o755);
    const refused = await run("add", "gpu", sshd.destination);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`vx: machine gpu runs vx 999.0.0, newer than this ${versionOfBin()} - upgrade here, or add it with --force to install this one there\n`);
    expect(readFileSync(remoteVx(), "utf8")).toBe(newer);
    expect(machinesJson().machines.gpu).toBeUndefined();
    const forced = await run("add", "gpu", sshd.destination, "--force");
    expect(forced.code).toBe(0);
    expect(forced.stderr).toBe(`vx: installing vx ${versionOfBin()} on gpu at ~/.local/bin/vx (it had vx 999.0.0)\n`);
    expect(sha256File(remoteVx())).toBe(sha256File(VX_BIN));
  });

  test("machine doctor: the connection, vx there, and the machine's own tool lines under its name", async () => {
    const bare = await run("doctor", "box");
    expect(bare.stdout).toMatch(/^\[missing\] box: harness - no harness found in PATH \(a soldier needs one\)$/m);
    expect(bare.code).toBe(1);
    writeExecutable(join(remote.bin, "claude"), "#!/bin/sh\nexec cat\n");
    const r = await run("doctor", "box");
    expect(r.stdout).toMatch(/^\[ok\] machine box - .* reached in \d+ ms$/m);
    expect(r.stdout).toMatch(new RegExp(`^\\[ok\\] box: vx - \\S+ at ${remoteVx()}$`, "m"));
    expect(r.stdout).toMatch(/^\[ok\] box: git - /m);
    expect(r.stdout).toMatch(/^\[ok\] box: tmux - /m);
    expect(r.stdout).toMatch(/^\[ok\] box: Claude Code - /m);
    expect(r.stdout).toMatch(/^\[optional\] box: herdr - /m);
    expect(r.code).toBe(0);
    // vx doctor here lists the machines from disk.
    const doctor = await vx(["doctor"], { cwd: sb.project, env });
    expect(doctor.stdout).toMatch(/^\[ok\] machine box - .*; check it with vx machine doctor box$/m);
  });

  test("remove: the entry goes and its control connection ends; an unknown name is one line", async () => {
    const r = await run("remove", "gpu");
    expect(r.stdout).toBe("removed machine gpu\n");
    expect(Object.keys(machinesJson().machines)).toEqual(["box"]);
    await run("remove", "box");
    const check = await sshd.ssh(["-o", `ControlPath=${controlPath(join(sb.home, ".vexillum"), sshd.destination)}`, "-O", "check", sshd.destination]);
    expect(check.code).not.toBe(0);
    const unknown = await run("remove", "box");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("vx: no machine named box - see vx machine list\n");
  });
});

describe("--stdin, the text's way to a machine (MCH-06, MCH-10)", () => {
  test("with words, or with nothing on stdin: a usage error, nothing dispatched", async () => {
    const words = await vx(["dispatch", "--stdin", "a", "prompt"], { cwd: sb.project, env });
    expect({ code: words.code, line: words.stderr.split("\n")[0] }).toEqual({ code: 64, line: "vx: --stdin reads the text from standard input: give no text words with it" });
    const empty = await vx(["dispatch", "--stdin"], { cwd: sb.project, env, stdin: "  \n" });
    expect({ code: empty.code, line: empty.stderr.split("\n")[0] }).toEqual({ code: 64, line: "vx: the prompt is empty (standard input had none)" });
    await vx(["init", "--yes", "--backend", "tmux", "--harness", "claude"], { cwd: sb.project, env });
    const unknown = await vx(["dispatch", "--on", "nowhere", "go"], { cwd: sb.project, env });
    expect(unknown.stderr).toBe("vx: no machine named nowhere - see vx machine list\n");
  });
});

describe("a machine that cannot be reached (MCH-09)", () => {
  test("status shows its tasks as unknown now, with the last relayed status, never interrupted; doctor warns", async () => {
    const id = "00000000000000aa";
    await vx(["init", "--yes", "--backend", "tmux", "--harness", "claude"], { cwd: sb.project, env });
    writeTaskFile(sb.home, sb.project, taskFixture({ id, status: "running", machine: "far", remote_project: "/there/project", camp_path: undefined, camp_slot: undefined }));
    const link = join(sb.home, ".vexillum", "relay", "far.json");
    mkdirSync(join(sb.home, ".vexillum", "relay"), { recursive: true });
    writeFileSync(link, JSON.stringify({ state: "down", since: "2026-12-06T01:00:00.000Z", error: "ssh: connect to host far port 22: Connection refused (ssh exited 255)" }));
    const status = await vx(["status"], { cwd: sb.project, env });
    expect(status.stdout).toContain(`${id}  mission  running  `);
    expect(status.stdout).toContain(
      "    on machine far, unreachable since 2026-12-06T01:00:00.000Z (ssh: connect to host far port 22: Connection refused (ssh exited 255)): its status now is unknown; shown is the last relayed\n",
    );
    const json = JSON.parse((await vx(["status", "--json"], { cwd: sb.project, env })).stdout);
    expect(json.machines.far).toMatchObject({ state: "down", since: "2026-12-06T01:00:00.000Z" });
  });
});

function versionOfBin(): string {
  return Bun.spawnSync([VX_BIN, "--version"]).stdout.toString().trim().replace(/^vx /, "");
}
