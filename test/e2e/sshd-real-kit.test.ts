// The sshd kit itself (test/sshd-real.ts): a real OpenSSH server on 127.0.0.1 reached by a Host
// alias as a person's ssh reaches a machine, with sessions of their own HOME; a multiplexed master;
// a key it does not know refused at once; a paused listener; a stopped server leaves nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processTable, waitFor } from "../helpers";
import { running, serverProcesses } from "../sshd-procs";
import { type Sshd, generateKey, startSshd } from "../sshd-real";
import { sandboxPath } from "../tool-path";

let base: string;
let localHome: string;
let remoteHome: string;
let sshd: Sshd;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "vx-sshd-kit-"));
  localHome = join(base, "local");
  remoteHome = join(base, "remote");
  for (const d of [localHome, remoteHome]) mkdirSync(d);
  sshd = await startSshd({ localHome, remoteHome, remotePath: sandboxPath() });
});

afterAll(async () => {
  await sshd?.stop();
  rmSync(base, { recursive: true, force: true });
});

/** Successful logins in the server's log: each new connection adds one, a multiplexed session none. */
const logins = () => readFileSync(sshd.log, "utf8").match(/^Accepted publickey for /gm)?.length ?? 0;

test("ssh by its alias, found on PATH under the local HOME, logs in without a prompt into the remote HOME and PATH", async () => {
  expect(statSync(join(localHome, ".ssh")).mode & 0o777).toBe(0o700);
  expect(statSync(join(localHome, ".ssh", "config")).mode & 0o777).toBe(0o600);
  // By name, as vx would: `env` looks ssh up on the given PATH, where binDir's comes first.
  const p = Bun.spawn(["env", "ssh", "-o", "BatchMode=yes", sshd.alias, 'echo "$HOME"; echo "$USER"; echo "$PATH"; echo "$TMPDIR"'], {
    env: sshd.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(err).toBe("");
  expect(code).toBe(0);
  expect(out).toBe(`${remoteHome}\n${sshd.user}\n${sandboxPath()}\n${sshd.dir}/tmp\n`);
});

test("a second connection through a ControlMaster needs no new login; -O check sees the master, -O exit ends it", async () => {
  // A short dir: a control socket's path (plus ssh's 17-character temporary suffix) must fit in 108 bytes.
  const cm = mkdtempSync(join(tmpdir(), "vx-cm-"));
  expect(statSync(cm).mode & 0o777).toBe(0o700);
  const control = ["-o", `ControlPath=${cm}/%C`];
  const mux = ["-o", "ControlMaster=auto", ...control, "-o", "ControlPersist=60"];
  let master = 0;
  try {
    const first = await sshd.ssh([...mux, sshd.alias, "echo one"]);
    expect(first).toMatchObject({ code: 0, stdout: "one\n" });
    const before = logins();
    const second = await sshd.ssh([...mux, sshd.alias, "echo two"]);
    expect(second).toMatchObject({ code: 0, stdout: "two\n" });
    expect(logins()).toBe(before);
    const check = await sshd.ssh(["-O", "check", ...control, sshd.alias]);
    expect(check.code).toBe(0);
    master = Number(/Master running \(pid=(\d+)\)/.exec(check.stderr)?.[1] ?? 0);
    expect(running(master)).toBe(true);
    const exit = await sshd.ssh(["-O", "exit", ...control, sshd.alias]);
    expect(exit.code).toBe(0);
    await waitFor(() => !running(master), 5_000, "the master to exit");
    expect(readdirSync(cm)).toEqual([]);
    expect((await sshd.ssh(["-O", "check", ...control, sshd.alias])).code).toBe(255);
  } finally {
    // A master a failed assertion left: asked to exit, else killed by its pid, checked by its own ControlPath.
    await sshd.ssh(["-O", "exit", ...control, sshd.alias]);
    if (master && running(master) && readFileSync(`/proc/${master}/cmdline`, "utf8").includes(cm)) process.kill(master, "SIGKILL");
    rmSync(cm, { recursive: true, force: true });
  }
});

test("a key the server does not know fails at once in batch mode (exit 255), with no prompt", async () => {
  const other = join(base, "other");
  mkdirSync(other);
  generateKey(join(other, "id_ed25519"));
  sshd.addClient(other, join(other, "id_ed25519"));
  const started = Date.now();
  const r = await sshd.ssh([sshd.alias, "true"], { home: other, timeoutMs: 10_000 });
  expect(r.stderr).toContain("Permission denied (publickey)");
  expect(r.code).toBe(255);
  expect(Date.now() - started).toBeLessThan(5_000);
});

test("a paused listener lets a new connection time out; resumed, it logs in again", async () => {
  sshd.pause();
  try {
    const r = await sshd.ssh(["-o", "ConnectTimeout=1", sshd.alias, "true"], { timeoutMs: 10_000 });
    expect(r.stderr).toContain("timed out");
    expect(r.code).toBe(255);
  } finally {
    sshd.resume();
  }
  expect((await sshd.ssh([sshd.alias, "true"])).code).toBe(0);
});

test("stop ends the listener, a live session and its programs (one setsid'd away), frees the port and removes its dir", async () => {
  // Constant remote text: a program left in its own session, then the session's shell as a second.
  const held = Bun.spawn(sshd.sshArgv([sshd.alias, "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! $$; exec sleep 300"]), { env: sshd.env, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
  try {
    const reader = held.stdout.getReader();
    let line = "";
    while (!line.includes("\n")) {
      const chunk = await reader.read();
      if (chunk.done) break;
      line += new TextDecoder().decode(chunk.value);
    }
    const programs = line.trim().split(" ").map(Number);
    expect(programs).toHaveLength(2);
    // The line is echoed before the backgrounded program's exec ends, and a process inside execve
    // shows no environment for a moment: wait until both programs carry the mark.
    const before = await waitFor(
      () => {
        const now = serverProcesses((d) => d === sshd.dir).map((f) => f.pid);
        return programs.every((p) => now.includes(p)) ? now : undefined;
      },
      10_000,
      "both programs to show the session's mark",
    );
    expect(before).toContain(sshd.pid);
    // The listener, the session's sshd and the two programs at least.
    expect(before.length).toBeGreaterThanOrEqual(4);
    await sshd.stop();
    for (const pid of before) expect(running(pid)).toBe(false);
    expect(processTable().filter(([, cmd]) => cmd.includes(sshd.dir))).toEqual([]);
    expect(existsSync(sshd.dir)).toBe(false);
    const refused = await Bun.connect({ hostname: "127.0.0.1", port: sshd.port, socket: { data() {} } }).then(
      (s) => {
        s.end();
        return false;
      },
      () => true,
    );
    expect(refused).toBe(true);
    // The client whose session ended is told so.
    expect(await held.exited).toBe(255);
  } finally {
    held.kill("SIGKILL");
  }
});
