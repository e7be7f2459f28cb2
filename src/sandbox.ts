/**
 * Whether vx runs inside a sandbox that breaks what dispatch needs (issue 15 item 8).
 *
 * Codex's default sandbox on Linux (workspace-write) runs every shell command under bubblewrap:
 * the filesystem read-only except the workspace (and /tmp), the workspace's `.git` read-only, and
 * a fresh pid namespace whose pid 1 is `codex-linux-sandbox` (bwrap's own name elsewhere). The
 * namespace ends with the command and takes every process in it along, so a sentinel started there
 * dies within the tool call, and the pid it recorded belongs to that namespace only. The sandbox
 * mounts its own /proc: /proc/self/ns/pid equals /proc/1/ns/pid there and /proc/<our pid> is us,
 * so neither tells; pid 1's program does. Where /proc is the host's instead, /proc/self names a
 * pid other than ours, which tells too.
 */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, readlinkSync, unlinkSync } from "node:fs";
import { basename, join } from "node:path";

/** Programs that are pid 1 of a throwaway sandbox namespace. */
const LAUNCHERS = ["codex-linux-sandbox", "bwrap"];

/** The sandbox launcher named by pid 1's command line (NUL-separated), if it is one. */
export function launcherOf(pid1Cmdline: string): string | undefined {
  const name = basename(pid1Cmdline.split("\0")[0] ?? "");
  return LAUNCHERS.includes(name) ? name : undefined;
}

/**
 * Why a process started here would not be the one the rest of the machine sees, or undefined when
 * it would: pid 1 is a sandbox launcher, or /proc/self is not our pid.
 */
export function foreignPidNamespace(proc = "/proc", pid = process.pid): string | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const launcher = launcherOf(readFileSync(join(proc, "1", "cmdline"), "latin1"));
    if (launcher) return `its own pid namespace, under ${launcher}`;
  } catch {
    // No /proc: nothing to tell by.
  }
  try {
    const self = Number(readlinkSync(join(proc, "self")));
    if (Number.isInteger(self) && self !== pid) return `its own pid namespace (pid ${pid} is ${self} outside)`;
  } catch {
    // As above.
  }
  return undefined;
}

/**
 * Whether a file can be created in `dir` (created and removed at once, exclusively, under a random
 * dot name): a read-only mount or a sandbox rule says no here, where a mode check would not (root
 * passes every mode check). Undefined when `dir` does not exist.
 */
export function canCreateIn(dir: string): boolean | undefined {
  const probe = join(dir, `.vx-write-check-${randomBytes(6).toString("hex")}`);
  try {
    closeSync(openSync(probe, "wx", 0o600));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? undefined : false;
  }
  unlinkSync(probe);
  return true;
}

/** Codex gives the commands it runs its thread id; its macOS sandbox also sets CODEX_SANDBOX. */
export function underCodex(env: Record<string, string | undefined>): boolean {
  return Boolean(env.CODEX_THREAD_ID || env.CODEX_SANDBOX || env.CODEX_SANDBOX_NETWORK_DISABLED);
}

/** Why a Codex commander needs a setting at all, for doctor and init. */
export const CODEX_SANDBOX_WHY =
  "Codex's default sandbox keeps .git read-only, turns the network off (herdr's and tmux's sockets too) and ends every process a command starts with the command, so vx dispatch refuses under it";

/**
 * What to set in Codex's config so its commands can run vx dispatch, for refusals, doctor and
 * init: full access, or (when the paths are known) the sandbox kept with the repository's git dir
 * and the state root writable, the network on, and the sentinel started outside Codex.
 */
export function codexSandboxAdvice(env: Record<string, string | undefined>, opts: { config?: string; writable?: string[] } = {}): string {
  const config = opts.config ?? (env.CODEX_HOME ? join(env.CODEX_HOME, "config.toml") : "~/.codex/config.toml");
  const full = `set sandbox_mode = "danger-full-access" in ${config} (or start codex with --sandbox danger-full-access)`;
  if (!opts.writable) return full;
  const roots = `[${opts.writable.map((p) => JSON.stringify(p)).join(", ")}]`;
  return `${full}, or keep the sandbox with writable_roots = ${roots} and network_access = true under [sandbox_workspace_write] there and 'vx sentinel' started outside Codex`;
}

/**
 * The one-line refusal: naming Codex's settings when Codex runs us, the sandbox when in a
 * sandbox's pid namespace, else only what is read-only (a read-only checkout is no sandbox).
 */
export function sandboxRefusal(what: string, reason: string, env: Record<string, string | undefined>, opts: { inNamespace: boolean; writable?: string[] }): string {
  if (underCodex(env)) return `${what} cannot work inside Codex's sandbox (${reason}) - ${codexSandboxAdvice(env, { writable: opts.writable })}`;
  if (opts.inNamespace) return `${what} cannot work inside this sandbox (${reason}) - run it from outside the sandbox`;
  return `${what} cannot work here (${reason}) - it must be able to write there`;
}
