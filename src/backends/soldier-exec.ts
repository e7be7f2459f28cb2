/**
 * A soldier's launcher: reads and removes the 0600 env file, then execs the harness, so no API key is on a command line (a tmux
 * server's `new-session` line is readable by every user for life). Not the tmux client's env: a running server ignores it.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { EXIT } from "../exit-codes";

/** The hidden first argument `cli.ts` answers with `soldierExec` before loading the rest of vx. */
export const SOLDIER_EXEC = "__soldier-exec";
/** The env file's name; the launcher reads no other. */
export const SOLDIER_ENV_FILE = "soldier-env.json";

export function soldierExecArgv(self: readonly string[], envFile: string, argv: readonly string[]): string[] {
  return [...self, SOLDIER_EXEC, envFile, "--", ...argv];
}

function readEnvFile(file: string): Record<string, string> {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!fstatSync(fd).isFile()) throw new Error("not a regular file");
    const parsed: unknown = JSON.parse(readFileSync(fd, "utf8"));
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not a JSON object");
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) if (typeof v === "string") out[k] = v;
    return out;
  } finally {
    closeSync(fd);
  }
}

/** `<env file> -- <harness> [args...]`: never returns when the harness starts; the exit code otherwise. */
export function soldierExec(args: string[], env: NodeJS.ProcessEnv = process.env, stderr: (line: string) => void = (l) => void process.stderr.write(l)): number {
  const [file, sep, cmd, ...rest] = args;
  if (!file || sep !== "--" || !cmd || basename(file) !== SOLDIER_ENV_FILE) {
    stderr(`vx: ${SOLDIER_EXEC} is run by vx in a soldier's pane: ${SOLDIER_EXEC} <dir>/${SOLDIER_ENV_FILE} -- <harness> [args...]\n`);
    return EXIT.usage;
  }
  let extra: Record<string, string>;
  try {
    extra = readEnvFile(file);
  } catch (err) {
    stderr(`vx: could not read the soldier's environment from ${file}: ${(err as Error).message}\n`);
    return EXIT.error;
  } finally {
    rmSync(file, { force: true });
  }
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) merged[k] = v;
  Object.assign(merged, extra);
  const path = cmd.includes("/") ? cmd : Bun.which(cmd, { PATH: merged.PATH ?? "" });
  if (!path) {
    stderr(`vx: ${cmd} not found in PATH\n`);
    return EXIT.notFound;
  }
  try {
    if (!process.execve) throw new Error("this runtime cannot replace its process (no execve)");
    process.execve(path, [cmd, ...rest], merged);
  } catch (err) {
    stderr(`vx: could not start ${cmd}: ${(err as Error).message}\n`);
  }
  return EXIT.cannotExecute;
}
