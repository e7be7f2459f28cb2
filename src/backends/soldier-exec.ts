/**
 * The launcher of a soldier's harness (issue 15, issue 24): it reads the dispatching environment
 * from the 0600 file the launch wrote, removes the file, and replaces itself (execve) with the
 * harness. So no variable of the user's environment (API keys) is ever on a command line: the
 * `new-session` that starts a tmux server stays that server's command line for life, readable by
 * every user in the process table. On tmux it is the pane's first program, and only vx's own
 * variables (no secrets) go on tmux's command line, as `-e`; a file beats the tmux client's
 * environment because a server that is already running gives new sessions its own global
 * environment, not the client's. On herdr a pane inherits the herdr server's environment, and a
 * launcher script named like the harness runs it (`soldier-env.ts`).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { EXIT } from "../exit-codes";

/** The hidden first argument `cli.ts` answers with `soldierExec` before loading the rest of vx. */
export const SOLDIER_EXEC = "__soldier-exec";
/** The env file's name; the launcher reads no other. */
export const SOLDIER_ENV_FILE = "soldier-env.json";

/** The pane's argv: `self` (vx's own argv) run as the launcher of `argv` with `envFile`. */
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
