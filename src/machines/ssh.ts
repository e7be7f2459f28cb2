/**
 * The one way vx talks to another machine (MCH-02): the user's own `ssh`, one multiplexed connection per
 * destination, never a prompt, and a remote command of quoted words only (user text goes on stdin).
 */
import { VxError } from "../errors";
import type { ExecOptions, ExecResult } from "../exec";
import type { Deps } from "../deps";
import { ensureStateDir } from "../state/files";
import { printable } from "../printable";
import { GUARDS } from "../time";
import { sshDir } from "./registry";

/** ssh's own exit code for its failures (connection, authentication), apart from the remote command's. */
export const SSH_FAILED = 255;

/** One POSIX shell word: ssh hands the remote shell a line, so every word is quoted. */
export function shellWord(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The control socket of a destination: a short hash of it, not ssh's 40-character `%C`, because a socket path is at most
 * 108 bytes with the 17 ssh adds while it makes one, and a state root can be long. `%` is ssh's token sign.
 */
export function controlPath(root: string, destination: string): string {
  const name = new Bun.CryptoHasher("sha256").update(destination).digest("hex").slice(0, 12);
  return `${sshDir(root)}/${name}`.replaceAll("%", "%%");
}

/** The options every connection carries: the user's config for the rest. */
export function sshOptions(root: string, destination: string): string[] {
  return [
    "-o",
    "BatchMode=yes",
    "-o",
    "ControlMaster=auto",
    "-o",
    `ControlPath=${controlPath(root, destination)}`,
    "-o",
    `ControlPersist=${GUARDS.sshPersist / 1000}`,
    "-o",
    "ServerAliveInterval=15",
    "-o",
    "ServerAliveCountMax=3",
    "-o",
    `ConnectTimeout=${GUARDS.sshConnect / 1000}`,
  ];
}

/** git's `GIT_SSH_COMMAND` for the same connection: our options as quoted words (git adds the host and its command). */
export function gitSshCommand(root: string, destination: string): string {
  return ["ssh", ...sshOptions(root, destination)].map(shellWord).join(" ");
}

/** `ssh ... -- <destination> <quoted words>`. */
export function sshArgv(root: string, destination: string, words: readonly string[]): string[] {
  return ["ssh", ...sshOptions(root, destination), "--", destination, words.map(shellWord).join(" ")];
}

/** A fixed script run by the remote's `sh` with its arguments as positional parameters: the script is ours, the arguments quoted. */
export function shScript(script: string, args: readonly string[] = []): string[] {
  return ["sh", "-c", script, "sh", ...args];
}

/** `words` run as a command in `dir` there. */
export function inDir(dir: string, words: readonly string[]): string[] {
  return shScript('cd "$1" && shift && exec "$@"', [dir, ...words]);
}

/** A machine's stderr lines, marked with its name: a path or a pid there is not one here. */
export function markedLines(name: string, text: string): string {
  return text.replace(/^(?=.)/gm, `[${name}] `);
}

export type Reach = { name: string; destination: string };

export async function sshRun(deps: Pick<Deps, "exec" | "env">, root: string, to: Reach, words: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> {
  ensureStateDir(root, sshDir(root));
  return deps.exec.run(sshArgv(root, to.destination, words), { env: deps.env, ...opts });
}

/** ssh's last stderr line: its own words for why (host key, refused, permission denied). */
export function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  return printable(lines.at(-1)?.trim() ?? "no output");
}

export function unreachable(to: Reach, stderr: string): VxError {
  return new VxError(`cannot reach machine ${to.name} (${printable(to.destination)}): ${lastLine(stderr)} - check it with: ssh ${printable(to.destination)} true`);
}

/** Runs, and turns ssh's own failure into MCH-02's line; the remote command's exit code is the caller's to read. */
export async function sshOrFail(deps: Pick<Deps, "exec" | "env">, root: string, to: Reach, words: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> {
  const res = await sshRun(deps, root, to, words, opts);
  if (res.code === SSH_FAILED) throw unreachable(to, res.stderr);
  return res;
}

/** Ends the destination's control connection, if one runs (`machine remove`). */
export async function closeConnection(deps: Pick<Deps, "exec" | "env">, root: string, destination: string): Promise<void> {
  await deps.exec.run(["ssh", ...sshOptions(root, destination), "-O", "exit", "--", destination], { env: deps.env, timeoutMs: GUARDS.toolProbe });
}
