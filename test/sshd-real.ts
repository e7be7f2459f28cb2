/**
 * A real OpenSSH server on 127.0.0.1 standing in for another machine: its own host key, one
 * authorized client key, and sessions whose HOME (and PATH, if given) are the "remote" ones, so a
 * vx reached over ssh keeps its own state root. The client side goes into the local HOME's ~/.ssh
 * the way a person configures a host. Started by the test, stopped by the pid it started; the
 * preload's `sweepSshd` ends what a test that timed out left. Linux only (it reads /proc).
 *
 * What sshd does that a test may not expect:
 * - OpenSSH's client reads ~/.ssh from the passwd entry's home, never from $HOME: the `ssh` in
 *   `binDir` passes `-F $HOME/.ssh/config`, so whoever runs it with HOME=localHome (vx too, with
 *   binDir first on PATH) gets that config, and /etc/ssh/ssh_config is not read.
 * - SetEnv sets HOME but a session still starts in the passwd home's directory (as root, /root).
 * - A notty session's programs outlive it (stop() ends them by the mark `sshd-procs.ts` describes).
 * - After some connections (a refused key, a paused listener's, a multiplexed master's) a child of
 *   sshd's is left to init, a zombie until init reaps it: a check for leftovers counts running ones.
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SESSION_MARK, endServers, serverDirOf } from "./sshd-procs";
import { sandboxPath } from "./tool-path";

/** sshd re-executes itself for each connection, so it must be started by an absolute path. */
const SSHD = "/usr/sbin/sshd";
const HOST = "127.0.0.1";

export type SshResult = { code: number; stdout: string; stderr: string };

export interface Sshd {
  /** The `Host` in localHome's ~/.ssh/config; what vx or ssh is given as the machine. */
  alias: string;
  /** The same as `alias`: a destination ssh takes. */
  destination: string;
  port: number;
  /** The listener, started by the kit. */
  pid: number;
  user: string;
  /** The private 0700 dir: keys, both configs, the log. */
  dir: string;
  log: string;
  /** Holds `ssh`, the real client reading $HOME/.ssh/config; put it first on a PATH. */
  binDir: string;
  /** The local user's environment: HOME=localHome, PATH=binDir then the sandbox tools. */
  env: { HOME: string; PATH: string };
  /** The argv of `ssh -o BatchMode=yes <args>` through binDir's ssh. */
  sshArgv(args: string[]): string[];
  /** Runs `sshArgv(args)` as the local user (or with `home` as HOME), killed after `timeoutMs`. */
  ssh(args: string[], opts?: { home?: string; timeoutMs?: number }): Promise<SshResult>;
  /** Configures this host in another HOME's ~/.ssh too, with `identity` as its key (default: the authorized one). */
  addClient(home: string, identity?: string): void;
  /** SIGSTOP/SIGCONT the listener: new connections hang before the banner; sessions go on. */
  pause(): void;
  resume(): void;
  /** Ends the listener, its sessions and their programs, and removes `dir`. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Paths go into two config files unquoted: no whitespace, quotes, comment or `%` token. */
function plain(what: string, value: string): string {
  if (/[\s"'\\#%]/.test(value)) throw new Error(`sshd kit: ${what} ${JSON.stringify(value)} cannot go into an ssh config`);
  return value;
}

function runSync(argv: string[]): SshResult {
  const res = Bun.spawnSync(argv, { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return { code: res.exitCode ?? -1, stdout: res.stdout.toString(), stderr: res.stderr.toString() };
}

function oneLine(text: string): string {
  return text.trim().split("\n").filter(Boolean).slice(-3).join(" | ");
}

/** Generates an ed25519 key pair without a passphrase at `path` (and `path`.pub). */
export function generateKey(path: string, comment = "vx-test"): void {
  const res = runSync(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path]);
  if (res.code !== 0) throw new Error(`ssh-keygen failed (exit ${res.code}): ${oneLine(res.stderr)}`);
}

/** A port free on 127.0.0.1 a moment ago; sshd cannot be given port 0, so a bind race is retried. */
function freePort(): number {
  const server = Bun.listen({ hostname: HOST, port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/** OpenSSH 9.8+ refuses a source for a while after failed logins, which a wrong-key test causes. */
function penaltiesOption(): string[] {
  const m = /OpenSSH_(\d+)\.(\d+)/.exec(runSync([SSHD, "-V"]).stderr);
  const atLeast98 = m !== null && (Number(m[1]) > 9 || (Number(m[1]) === 9 && Number(m[2]) >= 8));
  return atLeast98 ? ["PerSourcePenalties no"] : [];
}

function serverConfig(o: { dir: string; port: number; user: string; remoteHome: string; remotePath?: string; remoteEnv?: Record<string, string> }): string {
  // TMPDIR in the private dir: what the remote side leaves there (a tmux socket) goes with it.
  const env = [
    `HOME=${o.remoteHome}`,
    ...(o.remotePath ? [`PATH=${o.remotePath}`] : []),
    `TMPDIR=${o.dir}/tmp`,
    `${SESSION_MARK}=${o.dir}`,
    ...Object.entries(o.remoteEnv ?? {}).map(([k, v]) => `${k}=${plain(k, v)}`),
  ];
  return [
    `ListenAddress ${HOST}`,
    `Port ${o.port}`,
    `HostKey ${o.dir}/host_ed25519`,
    `PidFile ${o.dir}/sshd.pid`,
    `AuthorizedKeysFile ${o.dir}/authorized_keys`,
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "PubkeyAuthentication yes",
    "UsePAM no",
    "StrictModes no",
    "PermitRootLogin prohibit-password",
    `AllowUsers ${o.user}`,
    `SetEnv ${env.join(" ")}`,
    // Else sshd runs ~/.ssh/rc of the passwd home: the caller's own.
    "PermitUserRC no",
    "PrintMotd no",
    "PrintLastLog no",
    "LogLevel VERBOSE",
    ...penaltiesOption(),
    "",
  ].join("\n");
}

/**
 * `sshd -t` in one line, or undefined when the config is good. As root, sshd chroots its pre-auth
 * child into a privilege separation dir (Debian's /run/sshd) and will not start without it; the
 * system service's unit makes it, which a bare start skips, so it is made here (0755, as sshd
 * needs) and left: a system sshd would use the same dir.
 */
function configError(config: string): string | undefined {
  let res = runSync([SSHD, "-t", "-f", config]);
  const missing = /Missing privilege separation directory: (\S+)/.exec(res.stderr)?.[1];
  if (res.code !== 0 && missing && process.getuid?.() === 0) {
    mkdirSync(missing, { recursive: true, mode: 0o755 });
    res = runSync([SSHD, "-t", "-f", config]);
  }
  return res.code === 0 ? undefined : `sshd -t failed (exit ${res.code}): ${oneLine(res.stderr)}`;
}

/** The Host block and known_hosts line a person would have for this server, appended to `home`'s ~/.ssh. */
function writeClient(home: string, o: { alias: string; port: number; user: string; identity: string; hostKey: string }): void {
  const sshDir = join(home, ".ssh");
  mkdirSync(sshDir, { recursive: true, mode: 0o700 });
  chmodSync(sshDir, 0o700);
  const config = join(sshDir, "config");
  const knownHosts = join(sshDir, "known_hosts");
  if (existsSync(config) && readFileSync(config, "utf8").split("\n").includes(`Host ${o.alias}`)) {
    throw new Error(`sshd kit: ${config} already has Host ${o.alias}`);
  }
  const block = [
    `Host ${o.alias}`,
    `  HostName ${HOST}`,
    `  Port ${o.port}`,
    `  User ${o.user}`,
    `  IdentityFile ${plain("identity", o.identity)}`,
    "  IdentitiesOnly yes",
    `  UserKnownHostsFile ${plain("home", knownHosts)}`,
    "",
  ];
  appendFileSync(config, block.join("\n"), { mode: 0o600 });
  chmodSync(config, 0o600);
  // Known already, so StrictHostKeyChecking stays at its default, as a person's would.
  appendFileSync(knownHosts, `[${HOST}]:${o.port} ${o.hostKey}\n`, { mode: 0o600 });
}

/** Polls `ok` every 20 ms for up to `ms`; true when it held. */
async function until(ok: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) return false;
    await Bun.sleep(20);
  }
  return true;
}

/** Keys, the authorized key and binDir's ssh in the private `dir`. */
function prepare(dir: string): { identity: string; hostKey: string; binDir: string } {
  const identity = join(dir, "client_ed25519");
  generateKey(join(dir, "host_ed25519"), "vx-test-host");
  generateKey(identity, "vx-test-client");
  writeFileSync(join(dir, "authorized_keys"), readFileSync(`${identity}.pub`), { mode: 0o600 });
  const hostKey = readFileSync(join(dir, "host_ed25519.pub"), "utf8").split(" ").slice(0, 2).join(" ");
  const realSsh = Bun.which("ssh", { PATH: process.env.PATH ?? "/usr/bin:/bin" });
  if (!realSsh) throw new Error("OpenSSH's client (ssh) is not on PATH");
  const binDir = join(dir, "bin");
  mkdirSync(binDir);
  mkdirSync(join(dir, "tmp"), { mode: 0o700 });
  mkdirSync(join(dir, "openssh"));
  symlinkSync(realSsh, join(dir, "openssh", "ssh"));
  // Fixed text: the real client beside binDir, given the config of whatever HOME it runs under.
  writeFileSync(join(binDir, "ssh"), '#!/bin/sh\nexec "${0%/*}/../openssh/ssh" -F "$HOME/.ssh/config" "$@"\n', { mode: 0o755 });
  return { identity, hostKey, binDir };
}

type Listener = { port: number; proc: ReturnType<typeof Bun.spawn> };

/** Starts sshd on a free port, again on another when a bind race lost it; resolves once it listens. */
async function listen(o: { dir: string; user: string; remoteHome: string; remotePath?: string; remoteEnv?: Record<string, string> }): Promise<Listener> {
  const config = join(o.dir, "sshd_config");
  const log = join(o.dir, "sshd.log");
  for (let attempt = 1; ; attempt++) {
    const port = freePort();
    writeFileSync(config, serverConfig({ ...o, port }), { mode: 0o600 });
    const bad = attempt === 1 ? configError(config) : undefined;
    if (bad) throw new Error(bad);
    const logStart = existsSync(log) ? readFileSync(log, "utf8").length : 0;
    const logNow = () => (existsSync(log) ? readFileSync(log, "utf8").slice(logStart) : "");
    // -D: stays in the foreground, so the pid spawned is the listener; -e with -E: its log to the file.
    const proc = Bun.spawn([SSHD, "-D", "-e", "-E", log, "-f", config], { env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" }, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    const listening = await until(() => proc.exitCode !== null || logNow().includes(`Server listening on ${HOST} port ${port}.`), 10_000);
    if (listening && proc.exitCode === null) return { port, proc };
    if (proc.exitCode === null) proc.kill("SIGKILL");
    await proc.exited;
    if (attempt < 5 && logNow().includes("Address already in use")) continue;
    throw new Error(`sshd did not start (exit ${proc.exitCode}): ${oneLine(logNow())}`);
  }
}

/** The user sshd logs in: Bun's os.userInfo().username says "unknown" when USER is unset (as under CI). */
function loginName(): string {
  const res = runSync(["id", "-un"]);
  if (res.code !== 0) throw new Error(`id -un failed: ${oneLine(res.stderr)}`);
  return res.stdout.trim();
}

/** Waits until a real login by `alias` works, retried only while the port does not answer yet (bounded). */
async function accepts(ssh: Sshd["ssh"], alias: string, listener: Listener["proc"], log: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  let last = await ssh(["-o", "ConnectTimeout=5", alias, "true"]);
  while (last.code !== 0 && /Connection (refused|reset)/.test(last.stderr) && listener.exitCode === null && Date.now() < deadline) {
    await Bun.sleep(50);
    last = await ssh(["-o", "ConnectTimeout=5", alias, "true"]);
  }
  if (last.code !== 0) throw new Error(`sshd kit: ssh ${alias} true failed (exit ${last.code}): ${oneLine(last.stderr)}; sshd log: ${oneLine(readFileSync(log, "utf8"))}`);
}

export type SshdOptions = {
  /** The local user's HOME: its ~/.ssh gets the Host block and known_hosts line (appended). */
  localHome: string;
  /** HOME in every session, so the remote vx's state root is its own. */
  remoteHome: string;
  /** PATH in every session; without it, sshd's built-in default. */
  remotePath?: string;
  /** More variables in every session (plain words: no space, quote or `%`). */
  remoteEnv?: Record<string, string>;
  /** The Host name; "remote" unless given (two servers for one localHome need two). */
  alias?: string;
};

/** Starts the kit's sshd on 127.0.0.1 and configures `localHome`'s ssh to reach it; resolves once a login works. */
export async function startSshd(opts: SshdOptions): Promise<Sshd> {
  if (!existsSync(SSHD)) throw new Error(`OpenSSH's server is not installed (${SSHD} is missing): apt-get install openssh-server`);
  const alias = opts.alias ?? "remote";
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(alias)) throw new Error(`sshd kit: alias ${JSON.stringify(alias)} is not a plain host name`);
  const user = loginName();
  const dir = plain("temp dir", mkdtempSync(join(tmpdir(), "vx-sshd-")));
  const log = join(dir, "sshd.log");
  let prepared: ReturnType<typeof prepare>;
  let started: Listener;
  try {
    prepared = prepare(dir);
    started = await listen({ dir, user, remoteHome: plain("remoteHome", opts.remoteHome), remotePath: opts.remotePath && plain("remotePath", opts.remotePath), remoteEnv: opts.remoteEnv });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const { identity, hostKey, binDir } = prepared;
  const { port, proc: listener } = started;
  const env = { HOME: opts.localHome, PATH: `${binDir}:${sandboxPath()}` };
  const sshArgv = (args: string[]) => [join(binDir, "ssh"), "-o", "BatchMode=yes", ...args];
  const ssh = async (args: string[], o: { home?: string; timeoutMs?: number } = {}): Promise<SshResult> => {
    const p = Bun.spawn(sshArgv(args), { env: { ...env, HOME: o.home ?? env.HOME }, stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: o.timeoutMs ?? 15_000, killSignal: "SIGKILL" });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, stdout, stderr };
  };
  const isOurs = () => serverDirOf(listener.pid) === dir;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await endServers((d) => d === dir, 3_000);
    // Our own child, by its handle: never left running whatever its title says.
    if (listener.exitCode === null && listener.signalCode === null) listener.kill("SIGKILL");
    await listener.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    writeClient(opts.localHome, { alias, port, user, identity, hostKey });
    await accepts(ssh, alias, listener, log);
  } catch (e) {
    await stop();
    throw e;
  }
  const signalListener = (sig: NodeJS.Signals) => {
    if (!isOurs()) throw new Error(`sshd kit: pid ${listener.pid} is no longer this server's listener`);
    process.kill(listener.pid, sig);
  };
  return {
    alias,
    destination: alias,
    port,
    pid: listener.pid,
    user,
    dir,
    log,
    binDir,
    env,
    sshArgv,
    ssh,
    addClient: (home, id = identity) => writeClient(home, { alias, port, user, identity: id, hostKey }),
    pause: () => signalListener("SIGSTOP"),
    resume: () => signalListener("SIGCONT"),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
