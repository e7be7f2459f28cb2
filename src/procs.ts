/**
 * Process inspection for verified signalling and dead-claim recovery (WAK-08, AWT-08). A pid on
 * its own proves nothing: it may have been recycled for an unrelated program, so every decision
 * to trust or signal a process looks at what that pid is running right now.
 */
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { isAbsolute } from "node:path";
import { type Exec, realExec } from "./exec";
import { type Env, STATE_ROOT_VARS, realpathOr, stateRoot } from "./state/paths";

/** One live process: its parent, its argv, and (Linux) the file it runs. */
export type ProcessInfo = {
  ppid: number;
  /** The argv joined by spaces, as `ps` prints it. */
  command: string;
  /** Exact on Linux; elsewhere the command's words, so an argument with spaces reads as several. */
  argv: string[];
  /** Linux: where /proc/<pid>/exe points, " (deleted)" dropped; undefined when unreadable or elsewhere. */
  exe?: string;
};

/**
 * The parent pid and command line of `pid`, or undefined when it is gone (a zombie is gone) or
 * cannot be read, which is treated the same: nothing to trust. Nothing here may depend on the
 * caller's terminal: procps cuts `ps` output to `COLUMNS`, which a harness running in a narrow
 * pane sets, and a cut line loses the very words (`sentinel await`) vx looks for. So Linux reads
 * /proc, and elsewhere `ps` runs with `-ww` and without `COLUMNS`.
 */
export async function inspectProcess(pid: number, exec: Exec, platform?: string): Promise<ProcessInfo | undefined> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return procPlatform(exec, platform) === "linux" ? procInfo(pid) : psInfo(pid, exec);
}

/**
 * Which way processes are read: /proc when the platform is Linux, `ps` otherwise. An `Exec` other
 * than the real one stands in for `ps` (a test's table of processes), so it is asked whatever the
 * platform, unless the caller names one.
 */
export function procPlatform(exec: Exec, platform?: string): string {
  return platform ?? (exec === realExec ? process.platform : "ps");
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

/**
 * Linux: `/proc/<pid>/stat` for the parent and `/proc/<pid>/cmdline` (NUL-separated) for argv.
 * The stat line is `pid (comm) state ppid ...` where comm may itself hold spaces and parens, so
 * the fields are read after its last `)`.
 */
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

/**
 * A process that rewrote its title (setproctitle) has one string of space-separated words in
 * place of its argv; that string is split as `ps` would show it.
 */
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

/**
 * True when `exe` (where a process's /proc/<pid>/exe points) is a vx binary: the file this vx
 * runs from, or any file named `vx`. The name is enough to keep out what a recycled pid or a
 * forged argv could bring (`sleep`, a shell under `exec -a vx`); demanding this very file would
 * also keep out an await of the same state root started by an older build at another path (a
 * package manager's versioned directory), which must still be stopped when superseded.
 */
export function isVxExecutable(exe: string, self: string = realpathOr(process.execPath)): boolean {
  return exe === self || baseName(exe) === "vx";
}

function baseName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/** The development entry script: `src/cli.ts`, given relative or as any absolute path. */
function isEntryScript(word: string): boolean {
  return word === "src/cli.ts" || word.endsWith("/src/cli.ts");
}

/**
 * The index of the first argument after the vx program in `argv`, or -1 when the command is not
 * vx: `vx ...` / `/path/to/vx ...`, or an uncompiled run `bun [run] <path>/src/cli.ts ...`.
 * Where argv is only known as `ps` words (not Linux), an install path containing spaces reads as
 * not-vx, which errs on the side of never signalling.
 */
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

/** True when an argv is a vx process (compiled binary or development run). */
export function isVxArgv(argv: string[]): boolean {
  return vxArgsIndex(argv) !== -1;
}

/** The vx command an argv runs (`demo` of `vx demo --keep`); undefined when it is not vx. */
export function vxCommandOf(argv: string[]): string | undefined {
  const i = vxArgsIndex(argv);
  return i === -1 ? undefined : argv[i];
}

/** True when an argv is `vx sentinel await` (with or without further arguments). */
export function isAwaitArgv(argv: string[]): boolean {
  const i = vxArgsIndex(argv);
  return i !== -1 && argv[i] === "sentinel" && argv[i + 1] === "await";
}

/** True when `pid` is alive and running vx; a recycled pid running something else is not. */
export async function isLiveVx(pid: number, exec: Exec, platform?: string): Promise<boolean> {
  const info = await inspectProcess(pid, exec, platform);
  return info !== undefined && isVxArgv(info.argv);
}

/**
 * True when an inspected process is a `vx sentinel await`: by its argv and, where the kernel
 * tells (Linux), by the file it runs, so a program started under a forged argv is not one.
 */
export function isAwaitProcess(info: ProcessInfo, platform: string = process.platform): boolean {
  if (!isAwaitArgv(info.argv)) return false;
  if (platform !== "linux") return true;
  return info.exe !== undefined && isVxExecutable(info.exe);
}

/**
 * The state root `pid` runs with: its environment as it was started, put through the same
 * `stateRoot` vx uses for itself, symlinks resolved. Undefined whenever that cannot be proven
 * (the process is gone or another OS user's, its environment unreadable or ambiguous), so a
 * caller that signals only on a match never signals on a guess.
 */
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

/**
 * Elsewhere (macOS): `ps -E` prints the environment after the command line, space-separated, and
 * only for the caller's own processes. The words cannot tell a value's spaces from a separator,
 * so only the variables `stateRoot` reads are taken, each only when exactly one word sets it; a
 * HOME with a space then reads as another root, which errs on the side of never signalling.
 */
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

/**
 * The live processes (this one aside) whose environment holds `name=value` exactly: what a child
 * started with that variable set and all it started in turn, whether they left its process group
 * (setsid) or closed their output. On Linux each is read from `/proc/<pid>/environ`; elsewhere from
 * one `ps -E` listing of the caller's processes, a word equal to `name=value`.
 */
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
