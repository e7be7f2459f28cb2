/**
 * Process inspection for verified signalling and dead-claim recovery (WAK-08, AWT-08). A pid on
 * its own proves nothing: it may have been recycled for an unrelated program, so every decision
 * to trust or signal a process looks at what that pid is running right now.
 */
import { readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Exec } from "./exec";
import { type Env, STATE_ROOT_VARS, realpathOr, stateRoot } from "./state/paths";

/** What `ps` reports for one live process. */
export type ProcessInfo = { ppid: number; command: string };

/**
 * `ps -o ppid=,command= -p <pid>`: the parent pid and full command line, or undefined when the
 * process is gone (or `ps` cannot tell us, which is treated the same: nothing to trust).
 */
export async function inspectProcess(pid: number, exec: Exec): Promise<ProcessInfo | undefined> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const res = await exec.run(["ps", "-o", "ppid=,command=", "-p", String(pid)]);
  if (res.code !== 0) return undefined;
  const line = res.stdout.split("\n").find((l) => l.trim() !== "");
  const m = line?.match(/^\s*(\d+)\s+(.*\S)\s*$/);
  if (!m) return undefined;
  return { ppid: Number(m[1]), command: m[2] };
}

function baseName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/** The development entry script: `src/cli.ts`, given relative or as any absolute path. */
function isEntryScript(word: string): boolean {
  return word === "src/cli.ts" || word.endsWith("/src/cli.ts");
}

/**
 * The index of the first argument after the vx program in `words`, or -1 when the command is not
 * vx: `vx ...` / `/path/to/vx ...`, or an uncompiled run `bun [run] <path>/src/cli.ts ...`.
 * Words are split on whitespace, as `ps` prints them; an install path containing spaces
 * therefore reads as not-vx, which errs on the side of never signalling.
 */
function vxArgsIndex(words: string[]): number {
  const first = words[0];
  if (first === undefined) return -1;
  if (baseName(first) === "vx") return 1;
  if (baseName(first) !== "bun") return -1;
  let i = 1;
  if (words[i] === "run") i++;
  return words[i] !== undefined && isEntryScript(words[i]) ? i + 1 : -1;
}

function words(command: string): string[] {
  return command.trim().split(/\s+/).filter((w) => w !== "");
}

/** True when a `ps` command line is a vx process (compiled binary or development run). */
export function isVxCommand(command: string): boolean {
  return vxArgsIndex(words(command)) !== -1;
}

/** True when a `ps` command line is `vx sentinel await` (with or without further arguments). */
export function isAwaitCommand(command: string): boolean {
  const w = words(command);
  const i = vxArgsIndex(w);
  return i !== -1 && w[i] === "sentinel" && w[i + 1] === "await";
}

/** True when `pid` is alive and running vx; a recycled pid running something else is not. */
export async function isLiveVx(pid: number, exec: Exec): Promise<boolean> {
  const info = await inspectProcess(pid, exec);
  return info !== undefined && isVxCommand(info.command);
}

/**
 * The state root `pid` runs with: its environment as it was started, put through the same
 * `stateRoot` vx uses for itself, symlinks resolved. Undefined whenever that cannot be proven
 * (the process is gone or another OS user's, its environment unreadable or ambiguous), so a
 * caller that signals only on a match never signals on a guess.
 */
export async function processStateRoot(pid: number, exec: Exec, platform: string = process.platform): Promise<string | undefined> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const env = platform === "linux" ? procEnviron(pid) : await psEnviron(pid, exec);
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
function procEnviron(pid: number): Env | undefined {
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
  const res = await exec.run(["ps", "-E", "-ww", "-o", "command=", "-p", String(pid)]);
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
