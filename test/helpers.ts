/**
 * Shared test fixtures: throwaway homes and real git repositories, running the compiled vx as a
 * user would, and waiting on conditions (never on fixed sleeps).
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPO = resolve(import.meta.dir, "..");
export const VX_BIN = join(REPO, "dist", "vx");

export function git(cwd: string, ...args: string[]): string {
  const res = Bun.spawnSync(["git", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (res.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${res.stderr.toString()}`);
  return res.stdout.toString().trim();
}

export type Sandbox = {
  /** A fresh HOME for vx. */
  home: string;
  /** A git repository with one commit on `main`. */
  project: string;
  /** A directory first on PATH for fakes. */
  bin: string;
  env: Record<string, string>;
  [Symbol.dispose](): void;
};

/** A temp HOME, a real git repo with one commit, and a bin dir; removed on dispose. */
export function sandbox(opts: { git?: boolean } = {}): Sandbox {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-sbx-")));
  const home = join(base, "home");
  const project = join(base, "project");
  const bin = join(base, "bin");
  for (const d of [home, project, bin]) mkdirSync(d, { recursive: true });
  if (opts.git !== false) {
    git(project, "init", "-q", "-b", "main");
    writeFileSync(join(project, "README.md"), "# demo\n");
    git(project, "add", "README.md");
    git(project, "commit", "-q", "-m", "initial");
  }
  const env: Record<string, string> = {
    HOME: home,
    PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    GIT_AUTHOR_NAME: "vx test",
    GIT_AUTHOR_EMAIL: "vx@test.invalid",
    GIT_COMMITTER_NAME: "vx test",
    GIT_COMMITTER_EMAIL: "vx@test.invalid",
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
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
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
