/**
 * Shared test fixtures: throwaway homes and real git repositories, running the compiled vx as a
 * user would, and waiting on conditions (never on fixed sleeps).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isAlive } from "../src/procs";
import { projectKey } from "../src/state/paths";
import type { Task } from "../src/state/schemas";
import { GIT_TEST_ENV } from "./git-env";
import { sandboxPath } from "./tool-path";

export const REPO = resolve(import.meta.dir, "..");
export const VX_BIN = join(REPO, "dist", "vx");

export function git(cwd: string, ...args: string[]): string {
  const res = Bun.spawnSync(["git", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (res.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${res.stderr.toString()}`);
  return res.stdout.toString().trim();
}

/** Commits a `.gitignore` of `patterns` to the repository at `dir`. */
export function commitIgnores(dir: string, patterns: string): void {
  writeFileSync(join(dir, ".gitignore"), patterns);
  git(dir, "add", ".gitignore");
  git(dir, "commit", "-q", "-m", "ignores");
}

export type Sandbox = {
  /** A fresh HOME for vx. */
  home: string;
  /** A git repository with one commit on `main`. */
  project: string;
  /** A directory first on PATH for fakes; the rest of PATH is only the real tools tests use. */
  bin: string;
  env: Record<string, string>;
  [Symbol.dispose](): void;
};

let templateRepo: string | undefined;

/**
 * A real git repository with one commit on `main`, made once per test process (inside the run's
 * temp dir, which the preload removes) and copied for each sandbox: four git processes per test
 * were a large share of the suite's CPU time.
 */
function gitTemplate(): string {
  if (templateRepo && existsSync(join(templateRepo, ".git"))) return templateRepo;
  const dir = join(realpathSync(mkdtempSync(join(tmpdir(), "vx-template-"))), "project");
  mkdirSync(dir);
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "# demo\n");
  git(dir, "add", "README.md");
  git(dir, "commit", "-q", "-m", "initial");
  templateRepo = dir;
  return dir;
}

/** A temp HOME, a real git repo with one commit (its directory named `name`), and a bin dir; removed on dispose. */
export function sandbox(opts: { git?: boolean; name?: string } = {}): Sandbox {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-sbx-")));
  const home = join(base, "home");
  const project = join(base, opts.name ?? "project");
  const bin = join(base, "bin");
  for (const d of [home, bin]) mkdirSync(d, { recursive: true });
  if (opts.git === false) mkdirSync(project);
  else cpSync(gitTemplate(), project, { recursive: true, preserveTimestamps: true });
  const env: Record<string, string> = {
    HOME: home,
    // Built, never inherited: only the bin dir and the real tools tests need (see tool-path.ts).
    PATH: sandboxPath(bin),
    ...GIT_TEST_ENV,
    // CI runs as root, where a Claude soldier needs it (dispatch refuses otherwise).
    IS_SANDBOX: "1",
  };
  return {
    home,
    project,
    bin,
    env,
    [Symbol.dispose]() {
      rmSync(base, { recursive: true, force: true });
    },
  };
}

export type RunResult = { code: number; stdout: string; stderr: string };

/** Runs the compiled `dist/vx` with exactly `env` (nothing inherited) in `cwd`. */
export async function vx(args: string[], opts: { cwd: string; env: Record<string, string>; stdin?: string }): Promise<RunResult> {
  if (!existsSync(VX_BIN)) throw new Error("dist/vx is missing: run `bun run build` first (or `bun run test`)");
  const proc = Bun.spawn([VX_BIN, ...args], {
    cwd: opts.cwd,
    env: opts.env,
    stdin: opts.stdin === undefined ? "ignore" : new TextEncoder().encode(opts.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Polls `cond` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(cond: () => T | Promise<T>, timeoutMs = 10_000, what = "condition"): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await cond();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** Writes an executable script (used for fake tools on PATH); replaces a symlink, never its target. */
export function writeExecutable(path: string, text: string): void {
  rmSync(path, { force: true });
  writeFileSync(path, text, { mode: 0o755 });
}

/** `pid`'s command line as `ps -o args=` prints it (argv joined by spaces; `[name]` for a kernel thread), "" when gone. */
function commandLine(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    while (argv.length > 0 && argv[argv.length - 1] === "") argv.pop();
    if (argv.length > 0) return argv.join(" ");
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return `[${stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))}]`;
  } catch {
    return "";
  }
}

/**
 * Every process as [pid, full command line], read from /proc: at full width whatever the test's terminal, and without
 * a `ps` per call (tests poll this).
 */
export function processTable(): [number, string][] {
  const out: [number, string][] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const command = commandLine(Number(name));
    if (command !== "") out.push([Number(name), command]);
  }
  return out;
}

/** True while `pid` runs (a zombie counts as gone). */
export function alive(pid: number): boolean {
  return isAlive(pid);
}

function isSentinel(pid: number): boolean {
  return /\bsentinel\b/.test(commandLine(pid));
}

/**
 * Stops the sentinels a test started: the given pids and the one `sentinel.pid` names under
 * `home`, each only if alive and verified by its command line to be a sentinel.
 */
export async function stopSentinels(home: string, pids: Iterable<number> = []): Promise<void> {
  const all = new Set(pids);
  const pidFile = join(home, ".vexillum", "sentinel.pid");
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    if (Number.isInteger(pid) && pid > 0) all.add(pid);
  }
  for (const pid of all) {
    if (!alive(pid) || !isSentinel(pid)) continue;
    process.kill(pid, "SIGTERM");
    await waitFor(() => !alive(pid), 10_000, `sentinel ${pid} to stop`);
  }
}

export type TaskFixture = Task & Record<string, unknown>;

/** A task file's contents as vx writes them, with `over` applied (unknown fields allowed). */
export function taskFixture(over: Partial<Task> & Record<string, unknown> = {}): TaskFixture {
  return {
    id: "0123456789abcdef",
    schema_version: 1,
    kind: "mission",
    prompt: "fix the login bug",
    status: "running",
    created_at: "2026-11-30T10:00:00.000Z",
    updated_at: "2026-11-30T10:00:00.000Z",
    ...over,
  } as TaskFixture;
}

/** Writes a task file under `home` for `project` the way vx does (temp file, then rename). */
export function writeTaskFile(home: string, project: string, task: Record<string, unknown>): string {
  const dir = join(home, ".vexillum", "projects", projectKey(project), "tasks");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${task.id}.json`);
  writeFileSync(join(dir, `.${task.id}.tmp`), JSON.stringify(task, null, 2));
  renameSync(join(dir, `.${task.id}.tmp`), path);
  return path;
}
