/** Shared bench helpers: temp world with an initialized project, medians, process RSS. */
import { FFIType, dlopen } from "bun:ffi";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { LIKE_VX, LIKE_VX_COMPILE } from "../scripts/build-options";
import { realExec } from "../src/exec";
import { NOMINAL_WINDOWS } from "../src/lifecycle/decide";
import { type PassCtx, newMemory, runPass } from "../src/sentinel/pass";
import type { ProjectPaths } from "../src/state/paths";
import type { Task } from "../src/state/schemas";
import { realClock } from "../src/time";

export const VX = resolve(import.meta.dir, "..", "dist", "vx");

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function run(argv: string[], cwd: string, env: Record<string, string>): void {
  const r = Bun.spawnSync(argv, { cwd, env, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${r.stderr.toString()}`);
}

export type BenchWorld = { base: string; home: string; project: string; env: Record<string, string>; dispose(): void };

/** A temp HOME and an initialized git project; `env` runs vx there. */
export function benchWorld(extraEnv: Record<string, string> = {}): BenchWorld {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-bench-")));
  const home = join(base, "home");
  const project = join(base, "project");
  mkdirSync(home);
  mkdirSync(project);
  const env = { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin", ...extraEnv };
  const dispose = () => rmSync(base, { recursive: true, force: true });
  try {
    run(["git", "init", "-q", "-b", "main"], project, env);
    run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty", "-m", "i"], project, env);
    run([VX, "init", "--yes"], project, env);
  } catch (err) {
    // A bench run before `bun run build` (no dist/vx) leaves no world behind.
    dispose();
    throw err;
  }
  return { base, home, project, env, dispose };
}

/**
 * A compiled empty Bun program, the baseline for start-up ratios; `sameFlags` builds it the way
 * scripts/build.ts builds vx (scripts/build-options.ts), to separate vx's own cost from Bun's options;
 * `execArgv` adds runtime flags (a comparison with a flag vx does not take).
 */
export async function emptyBinary(dir: string, sameFlags = false, execArgv: string[] = []): Promise<string> {
  const src = join(dir, "empty.ts");
  await Bun.write(src, "");
  const out = join(dir, `${sameFlags ? "empty-same-flags" : "empty"}${execArgv.join("")}`);
  const result = await Bun.build({
    entrypoints: [src],
    ...(sameFlags ? LIKE_VX : {}),
    compile: { outfile: out, ...(sameFlags ? LIKE_VX_COMPILE : {}), ...(execArgv.length ? { execArgv } : {}) },
  });
  if (!result.success) throw new Error(`could not build ${out}`);
  return out;
}

/**
 * Resident memory of a process in KiB (Linux): total, anonymous (its own heap and stacks), and
 * file-backed (pages of the mapped executable, clean and shared with every other vx).
 */
export function rssKiB(pid: number): { total: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { total: field("VmRSS"), anon: field("RssAnon"), file: field("RssFile") };
}

/** Runs each command `runs` times, interleaved, and returns median wall milliseconds per command. */
export function interleaved(cmds: { argv: string[]; cwd: string; env: Record<string, string> }[], runs: number): number[] {
  const times = cmds.map(() => [] as number[]);
  for (let i = 0; i < runs + 5; i++) {
    cmds.forEach((c, j) => {
      const t0 = Bun.nanoseconds();
      const r = Bun.spawnSync(c.argv, { cwd: c.cwd, env: c.env, stdout: "pipe", stderr: "pipe" });
      const ms = (Bun.nanoseconds() - t0) / 1e6;
      if (r.exitCode !== 0) throw new Error(`${c.argv.join(" ")} exited ${r.exitCode}`);
      if (i >= 5) times[j].push(ms);
    });
  }
  return times.map(median);
}

/** As `interleaved`, but the median CPU (user + system) milliseconds each run cost: a figure a loaded machine disturbs less. */
export function interleavedCpu(cmds: { argv: string[]; cwd: string; env: Record<string, string> }[], runs: number): number[] {
  const times = cmds.map(() => [] as number[]);
  for (let i = 0; i < runs + 5; i++) {
    cmds.forEach((c, j) => {
      const r = Bun.spawnSync(c.argv, { cwd: c.cwd, env: c.env, stdout: "pipe", stderr: "pipe" });
      if (r.exitCode !== 0) throw new Error(`${c.argv.join(" ")} exited ${r.exitCode}`);
      const cpu = r.resourceUsage?.cpuTime;
      if (i >= 5 && cpu) times[j]?.push(Number(cpu.user + cpu.system) / 1000);
    });
  }
  return times.map(median);
}

/**
 * A `herdr` in `bin` that answers every call with one `agent list` of `agents`, prepared once, and
 * counts its calls: what a sentinel pass costs without herdr's own time.
 */
export function fakeHerdrList(bin: string, base: string, agents: unknown[]): { calls(): number } {
  const listFile = join(base, "agent-list.json");
  const callLog = join(base, "herdr-calls");
  writeFileSync(listFile, `${JSON.stringify({ id: "cli:agent:list", result: { agents, type: "agent_list" } })}\n`);
  writeFileSync(join(bin, "herdr"), `#!/bin/sh\necho x >> ${callLog}\nexec cat ${listFile}\n`, { mode: 0o755 });
  writeFileSync(callLog, "");
  return { calls: () => readFileSync(callLog, "utf8").split("\n").filter(Boolean).length };
}

/**
 * `n` in-process sentinel passes over the state root `root` with `env` (its PATH picks the herdr and
 * tmux the passes call): each pass's CPU in ms (the first `warmup` left out) and the processes
 * `count` says it started.
 */
export async function timedPasses(
  root: string,
  env: Record<string, string>,
  count: () => number,
  n: number,
  warmup: number,
  extra: Partial<PassCtx> = {},
): Promise<{ cpu: number[]; perPass: number[] }> {
  const ctx: PassCtx = {
    root,
    exec: realExec,
    clock: realClock,
    env,
    log: () => {},
    windows: NOMINAL_WINDOWS,
    memory: newMemory(),
    ...extra,
  };
  const cpu: number[] = [];
  const perPass: number[] = [];
  for (let i = 0; i < n; i++) {
    const before = count();
    const u0 = process.cpuUsage();
    await runPass(ctx);
    const u = process.cpuUsage(u0);
    if (i >= warmup) cpu.push((u.user + u.system) / 1000);
    perPass.push(count() - before);
  }
  return { cpu, perPass };
}

/** A running bench mission's task, with `fields` (its backend's, its camp's) over the common ones. */
export function runningTask(id: string, fields: Record<string, unknown>): Task {
  return {
    id,
    schema_version: 1,
    kind: "mission",
    prompt: "bench",
    status: "running",
    created_at: "2026-11-30T10:00:00Z",
    updated_at: "2026-11-30T10:00:00Z",
    harness: "claude",
    ...fields,
  } as Task;
}

/** Writes `runningTask(id, fields)` as the task file of `paths`' project. */
export function taskFile(paths: ProjectPaths, id: string, fields: Record<string, unknown>): void {
  writeFileSync(join(paths.tasksDir, `${id}.json`), JSON.stringify(runningTask(id, fields)));
}

/**
 * A process's memory from /proc/<pid>/smaps_rollup (Linux), in KiB: RSS, PSS, and anonymous memory
 * (its own heap and stacks: what the program controls; the rest is mostly pages of its binary).
 */
export function smapsKiB(pid: number): { rss: number; pss: number; anon: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? Number.NaN);
  return { rss: field("Rss"), pss: field("Pss"), anon: field("Anonymous") };
}

const openLibc = () =>
  dlopen("libc.so.6", {
    clock_getcpuclockid: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
  });
let libc: ReturnType<typeof openLibc> | undefined;

/**
 * A whole process's CPU time in ns, its ended threads included (the process CPU clock of
 * clock_getcpuclockid). Summing /proc/<pid>/task/<tid>/schedstat loses a thread's time when it ends,
 * and Bun's helper threads come and go; /proc/<pid>/stat counts them but only in 10 ms ticks.
 */
export function procCpuNs(pid: number): number {
  libc ??= openLibc();
  const clock = new Int32Array(1);
  const ts = new BigInt64Array(2);
  if (libc.symbols.clock_getcpuclockid(pid, clock) !== 0 || libc.symbols.clock_gettime(clock[0]!, ts) !== 0) {
    throw new Error(`cannot read the CPU clock of process ${pid}: it has ended, or it is not this user's`);
  }
  return Number(ts[0]) * 1e9 + Number(ts[1]);
}

/** utime + stime of a process, in ms (USER_HZ is 100 on Linux). */
export function procCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}
