// The helpers both wake programs (pi-wake.ts, opencode-wake.ts) share: finding vx the way the Stop
// hook does, the camp check, VX_TIME_SCALE, spawning and stopping the await. They run inside the
// harness, never inside vx, so they use Node built-ins only. Each program imports them for the type
// checker, and vx writes the text after the cut line in that import's place (program-text.ts).
// There the program's own imports come first, then its types, then these helpers: so each program
// carries the three imports below, which are not written from here (program-text.ts checks it).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, join, resolve, sep } from "node:path";

export { NOT_FOUND, findVx, gitToplevel, isCamp, scaled, spawnAwait, stopAwait };
// vx's own values, put in the programs' text when written (wake-common.ts).
export declare const __WAKE_RETRY_MS__: number;
export declare const __WAKE_RELISTEN_MS__: number;
export declare const __WAKE_DELIVERED__: number;
// ---- vx writes what follows ----
const NOT_FOUND =
  "vx: not found, so the vexillum wake extension cannot wake the commander. Install vx (brew or curl) or put its directory on PATH, then run: vx doctor";

// VX_TIME_SCALE multiplies every built-in duration, these included (ENV-07).
function scaled(ms: number): number {
  const raw = process.env.VX_TIME_SCALE ?? "";
  const n = Number(raw);
  const ok = /^\s*[0-9]*\.?[0-9]+(e[-+]?[0-9]+)?\s*$/i.test(raw) && Number.isFinite(n) && n > 0;
  return ms * (ok ? n : 1);
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// The same places the Stop hook looks, so a vx missing from the harness's PATH is still found.
function findVx(): string | undefined {
  const home = process.env.HOME ?? "";
  const candidates = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "")
    .map((dir) => join(dir, "vx"));
  if (home !== "") candidates.push(join(home, ".local", "bin", "vx"));
  candidates.push("/opt/homebrew/bin/vx", "/usr/local/bin/vx", "/home/linuxbrew/.linuxbrew/bin/vx");
  return candidates.find(isExecutableFile);
}

function gitToplevel(cwd: string): Promise<string | undefined> {
  return new Promise((done) => {
    execFile("git", ["rev-parse", "--show-toplevel"], { cwd }, (error, stdout) => {
      const top = String(stdout ?? "").trim();
      done(error || top === "" ? undefined : top);
    });
  });
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

// A camp is a worktree under the state root; its soldier is not a commander.
function isCamp(toplevel: string): boolean {
  const home = process.env.HOME ?? "";
  if (home === "") return false;
  const root = real(join(home, ".vexillum"));
  const top = real(toplevel);
  return top === root || top.startsWith(root + sep);
}

// One "vx sentinel await" child. onExit gets its exit code, its stderr (the wake text when the code
// is 2) and how long it ran. It never holds the harness open: an await whose parent went away
// stops by itself (AWT-06).
function spawnAwait(vx: string, cwd: string, onExit: (code: number | null, text: string, ranMs: number) => void): ChildProcess | undefined {
  const startedAt = Date.now();
  let stderr = "";
  let finished = false;
  let proc: ChildProcess;
  try {
    proc = spawn(vx, ["sentinel", "await"], { cwd, env: process.env, stdio: ["ignore", "ignore", "pipe"] });
  } catch {
    return undefined;
  }
  proc.unref();
  (proc.stderr as { unref?: () => void } | null)?.unref?.();
  proc.stderr?.setEncoding("utf8");
  proc.stderr?.on("data", (chunk: string) => {
    stderr += chunk;
  });
  const finish = (code: number | null): void => {
    if (finished) return;
    finished = true;
    onExit(code, stderr.replace(/\s+$/, ""), Date.now() - startedAt);
  };
  proc.on("error", () => finish(null));
  proc.on("close", (code) => finish(code));
  return proc;
}

// SIGTERM makes the await put its claimed wakes back for the next listener (AWT-11).
function stopAwait(proc: ChildProcess | undefined): void {
  if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
}
