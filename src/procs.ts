// A pid alone proves nothing (it may be recycled), so every decision to trust or signal a process reads what it runs now (WAK-08, AWT-08).
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { isAbsolute } from "node:path";
import { type Exec, realExec } from "./exec";
import { type Env, STATE_ROOT_VARS, realpathOr, stateRoot } from "./state/paths";

export type ProcessInfo = {
  ppid: number;
  /** The argv joined by spaces, as `ps` prints it. */
  command: string;
  /** Exact on Linux; elsewhere the command's words, so an argument with spaces reads as several. */
  argv: string[];
  /** Linux: where /proc/<pid>/exe points, " (deleted)" dropped; undefined when unreadable or elsewhere. */
  exe?: string;
};

/** `pid`'s parent and argv, undefined when gone or unreadable; never cut to a narrow pane's COLUMNS, which would lose `sentinel await`. */
export async function inspectProcess(pid: number, exec: Exec, platform?: string): Promise<ProcessInfo | undefined> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return procPlatform(exec, platform) === "linux" ? procInfo(pid) : psInfo(pid, exec);
}

/** /proc on Linux, else `ps`; a fake Exec (a test's process table) is asked as `ps` unless the caller names a platform. */
export function procPlatform(exec: Exec, platform?: string): string {
  return platform ?? (exec === realExec ? process.platform : "ps");
}

/** `pid`'s state letter from /proc (Linux), "" when it is gone or unreadable. */
function procState(pid: number): string {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return "";
  }
  const close = stat.lastIndexOf(")");
  return close === -1
    ? ""
    : stat
        .slice(close + 1)
        .trim()
        .charAt(0);
}

/**
 * Alive and not a zombie: an orphan that exited stays one until init reaps it, which can take seconds.
 * On Linux a read of /proc (a `ps` per call cost 10 ms of CPU, and waits call this every few ms).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (process.platform === "linux") {
    const state = procState(pid);
    return state !== "" && state !== "Z" && state !== "X";
  }
  const ps = Bun.spawnSync(["ps", "-o", "stat=", "-p", String(pid)], { stdout: "pipe", stderr: "ignore" });
  const stat = ps.stdout.toString().trim();
  return stat !== "" && !stat.startsWith("Z");
}

/** `process.env` (or `env`) without the variables that make `ps` cut its lines to a terminal's width. */
export function psEnv(env: Env = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && name !== "COLUMNS") out[name] = value;
  }
  return out;
}

async function psInfo(pid: number, exec: Exec): Promise<ProcessInfo | undefined> {
  const res = await exec.run(["ps", "-ww", "-o", "ppid=,command=", "-p", String(pid)], { env: psEnv() });
  if (res.code !== 0) return undefined;
  const line = res.stdout.split("\n").find((l) => l.trim() !== "");
  const m = line?.match(/^\s*(\d+)\s+(.*\S)\s*$/);
  if (!m) return undefined;
  const command = m[2] as string;
  return { ppid: Number(m[1]), command, argv: words(command) };
}

/** Linux: the stat line's fields are read after comm's last `)`, since comm may hold spaces and parens. */
function procInfo(pid: number): ProcessInfo | undefined {
  let stat: string;
  let cmdline: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return undefined;
  }
  const close = stat.lastIndexOf(")");
  if (close === -1) return undefined;
  const [state, ppidText] = stat
    .slice(close + 1)
    .trim()
    .split(" ");
  const ppid = Number(ppidText);
  if (state === "Z" || state === "X" || !Number.isSafeInteger(ppid) || ppid < 0) return undefined;
  const argv = argvOf(cmdline);
  return { ppid, command: argv.join(" "), argv, exe: exeOf(pid) };
}

/** A process that rewrote its title (setproctitle) has one space-separated string for argv: split it as `ps` would. */
function argvOf(cmdline: string): string[] {
  const argv = cmdline.split("\0");
  while (argv.length > 0 && argv[argv.length - 1] === "") argv.pop();
  return argv.length === 1 && /\s/.test(argv[0] as string) ? words(argv[0] as string) : argv;
}

function exeOf(pid: number): string | undefined {
  try {
    // An executable replaced on disk since the process started (an upgrade) reads "<path> (deleted)".
    return readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, "");
  } catch {
    return undefined; // another user's process, or a kernel thread
  }
}

/** This vx's file or any named `vx`: that keeps out a recycled pid or forged argv, yet an older build's await can still be stopped. */
export function isVxExecutable(exe: string, self: string = realpathOr(process.execPath)): boolean {
  return exe === self || baseName(exe) === "vx";
}

function baseName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

function isEntryScript(word: string): boolean {
  return word === "src/cli.ts" || word.endsWith("/src/cli.ts");
}

/** Index of the first argument after the vx program, or -1; from `ps` words an install path with spaces reads as not-vx (never signalled). */
function vxArgsIndex(argv: string[]): number {
  const first = argv[0];
  if (first === undefined) return -1;
  if (baseName(first) === "vx") return 1;
  if (baseName(first) !== "bun") return -1;
  let i = 1;
  if (argv[i] === "run") i++;
  return argv[i] !== undefined && isEntryScript(argv[i] as string) ? i + 1 : -1;
}

function words(command: string): string[] {
  return command
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "");
}

export function isVxArgv(argv: string[]): boolean {
  return vxArgsIndex(argv) !== -1;
}

/** The vx command an argv runs (`demo` of `vx demo --keep`); undefined when it is not vx. */
export function vxCommandOf(argv: string[]): string | undefined {
  const i = vxArgsIndex(argv);
  return i === -1 ? undefined : argv[i];
}

export function isAwaitArgv(argv: string[]): boolean {
  const i = vxArgsIndex(argv);
  return i !== -1 && argv[i] === "sentinel" && argv[i + 1] === "await";
}

/** True when `pid` is alive and running vx; a recycled pid running something else is not. */
export async function isLiveVx(pid: number, exec: Exec, platform?: string): Promise<boolean> {
  const info = await inspectProcess(pid, exec, platform);
  return info !== undefined && isVxArgv(info.argv);
}

/** A `vx sentinel await` by argv and, on Linux, by the file it runs, so a forged argv is not one. */
export function isAwaitProcess(info: ProcessInfo, platform: string = process.platform): boolean {
  if (!isAwaitArgv(info.argv)) return false;
  if (platform !== "linux") return true;
  return info.exe !== undefined && isVxExecutable(info.exe);
}

/** `pid`'s state root from its starting environment, symlinks resolved; undefined whenever unproven, so nothing is signalled on a guess. */
export async function processStateRoot(pid: number, exec: Exec, platform?: string): Promise<string | undefined> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const env = procPlatform(exec, platform) === "linux" ? procEnviron(pid) : await psEnviron(pid, exec);
  if (!env) return undefined;
  let root: string;
  try {
    root = stateRoot(env);
  } catch {
    return undefined; // no HOME: such a vx never got as far as a state root
  }
  return isAbsolute(root) ? realpathOr(root) : undefined;
}

/** A variable given twice is dropped: which copy the process reads is not ours to guess. */
function envFrom(entries: string[]): Env {
  const env: Env = {};
  const seen = new Set<string>();
  for (const entry of entries) {
    const eq = entry.indexOf("=");
    if (eq <= 0) continue;
    const name = entry.slice(0, eq);
    env[name] = seen.has(name) ? undefined : entry.slice(eq + 1);
    seen.add(name);
  }
  return env;
}

/** Linux: `/proc/<pid>/environ`, NUL-separated; unreadable for another user's process. */
export function procEnviron(pid: number): Env | undefined {
  try {
    return envFrom(readFileSync(`/proc/${pid}/environ`, "utf8").split("\0"));
  } catch {
    return undefined;
  }
}

/** macOS `ps -E` words cannot tell a value's space from a separator: only `stateRoot`'s variables, each set by exactly one word. */
async function psEnviron(pid: number, exec: Exec): Promise<Env | undefined> {
  const res = await exec.run(["ps", "-E", "-ww", "-o", "command=", "-p", String(pid)], { env: psEnv() });
  if (res.code !== 0) return undefined;
  const all = words(res.stdout);
  const picked: string[] = [];
  for (const name of STATE_ROOT_VARS) {
    const set = all.filter((w) => w.startsWith(`${name}=`));
    if (set.length !== 1) return undefined;
    picked.push(set[0] as string);
  }
  return envFrom(picked);
}

/** Live processes (this one aside) with `name=value` in their environment, even those that left the group (setsid) or closed their output. */
export async function processesWithEnv(name: string, value: string, exec: Exec, platform?: string): Promise<number[]> {
  const pair = `${name}=${value}`;
  if (procPlatform(exec, platform) === "linux") {
    let names: string[];
    try {
      names = readdirSync("/proc");
    } catch {
      return [];
    }
    return names
      .filter((n) => /^[1-9][0-9]*$/.test(n))
      .map(Number)
      .filter((pid) => pid !== process.pid && procEnviron(pid)?.[name] === value);
  }
  const res = await exec.run(["ps", "-E", "-ww", "-ax", "-o", "pid=,command="], { env: psEnv() });
  if (res.code !== 0) return [];
  const out: number[] = [];
  for (const line of res.stdout.split("\n")) {
    const m = line.match(/^\s*(\d+)\s+(.*)$/);
    if (m && Number(m[1]) !== process.pid && words(m[2] as string).includes(pair)) out.push(Number(m[1]));
  }
  return out;
}

/** Whether `pid` still runs with `name=value` in its environment, read again right before a signal (Linux). */
export function stillHasEnv(pid: number, name: string, value: string, exec: Exec, platform?: string): boolean {
  return procPlatform(exec, platform) !== "linux" || procEnviron(pid)?.[name] === value;
}
