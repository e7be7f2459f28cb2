// A sandbox that breaks dispatch (Codex's: docs/real-clients.md) ends its pid namespace with each command. Its own /proc makes
// /proc/self/ns/pid equal /proc/1/ns/pid, so pid 1's program tells; under the host's /proc, /proc/self is not our pid.
import { randomHex } from "./random";
import { closeSync, openSync, readFileSync, readlinkSync, unlinkSync } from "node:fs";
import { basename, join } from "node:path";

const LAUNCHERS = ["codex-linux-sandbox", "bwrap"];

/** The sandbox launcher named by pid 1's command line (NUL-separated), if it is one. */
export function launcherOf(pid1Cmdline: string): string | undefined {
  const name = basename(pid1Cmdline.split("\0")[0] ?? "");
  return LAUNCHERS.includes(name) ? name : undefined;
}

/** Why a process started here is not one the rest of the machine sees (pid 1 a launcher, or /proc/self not us); undefined when it is. */
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

/** Creates and removes a probe: a read-only mount or sandbox rule says no where a mode check would not (root passes all); undefined when no `dir`. */
export function canCreateIn(dir: string): boolean | undefined {
  const probe = join(dir, `.vx-write-check-${randomHex(6)}`);
  try {
    closeSync(openSync(probe, "wx", 0o600));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? undefined : false;
  }
  unlinkSync(probe);
  return true;
}

/** Variables Codex sets in the commands it runs (docs/real-clients.md). */
export function underCodex(env: Record<string, string | undefined>): boolean {
  return Boolean(env.CODEX_THREAD_ID || env.CODEX_SANDBOX || env.CODEX_SANDBOX_NETWORK_DISABLED);
}

export const CODEX_SANDBOX_WHY =
  "Codex's default sandbox keeps .git read-only, turns the network off (herdr's and tmux's sockets too) and ends every process a command starts with the command, so vx dispatch refuses under it";

/** The Codex settings that let dispatch run: full access, or (paths known) the sandbox with git dir and state root writable and the network on. */
export function codexSandboxAdvice(env: Record<string, string | undefined>, opts: { config?: string; writable?: string[] } = {}): string {
  const config = opts.config ?? (env.CODEX_HOME ? join(env.CODEX_HOME, "config.toml") : "~/.codex/config.toml");
  const full = `set sandbox_mode = "danger-full-access" in ${config} (or start codex with --sandbox danger-full-access)`;
  if (!opts.writable) return full;
  const roots = `[${opts.writable.map((p) => JSON.stringify(p)).join(", ")}]`;
  return `${full}, or keep the sandbox with writable_roots = ${roots} and network_access = true under [sandbox_workspace_write] there and 'vx sentinel' started outside Codex`;
}

/** Names Codex's settings under Codex, the sandbox in a sandbox's namespace, else only what is read-only (a read-only checkout is no sandbox). */
export function sandboxRefusal(what: string, reason: string, env: Record<string, string | undefined>, opts: { inNamespace: boolean; writable?: string[] }): string {
  if (underCodex(env)) return `${what} cannot work inside Codex's sandbox (${reason}) - ${codexSandboxAdvice(env, { writable: opts.writable })}`;
  if (opts.inNamespace) return `${what} cannot work inside this sandbox (${reason}) - run it from outside the sandbox`;
  return `${what} cannot work here (${reason}) - it must be able to write there`;
}
