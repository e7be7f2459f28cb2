#!/usr/bin/env bun
/**
 * The sentinel at scale, against a fair floor: bench/sentinel-floor.ts compiled with vx's own build
 * options (scripts/build-options.ts), doing a pass's real I/O over the same state root (the task
 * files, the op-lock files, the watches, the same fake herdr's `agent list` JSON) and nothing else.
 * 1. In-process passes at 200 running tasks over 20 projects: herdr processes per pass (goal 1).
 * 2. The compiled `vx sentinel` and the compiled floor, each polling the same world at a tiny
 *    VX_TIME_SCALE with the sentinel's runtime settings: CPU per pass from /proc (goal: vx within
 *    2.5x of the floor), anonymous memory sampled through the run (goal <= 10 MiB and flat over
 *    10,000 passes), RSS and PSS beside it; then at 5,000 tasks (goal: anonymous <= 40 MiB).
 *    Both with the binary's runtime flags as scripts/build.ts sets them and with --smol toggled
 *    (`shipped` or `toggled` runs one; two processes of this bench can run side by side).
 * Usage: bun run build && bun bench/sentinel-pass.ts [passes=10000] [passes at 5,000 tasks=500] [variants=both|shipped|toggled]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { VX_EXEC_ARGV, vxBuildConfig } from "../scripts/build-options";
import pkg from "../package.json" with { type: "json" };
import { SENTINEL_RUNTIME_ENV } from "../src/sentinel/ensure";
import { projectPaths } from "../src/state/paths";
import { ensureProjectRecord } from "../src/state/project-record";
import { DURATIONS } from "../src/time";
import { benchWorld, fakeHerdrList, median, procCpuMs, smapsKiB, taskFile, timedPasses } from "./lib";

const passes = Number(process.argv[2] ?? 10_000);
const bigPasses = Number(process.argv[3] ?? 500);
const variants = process.argv[4] ?? "both";
const SCALE = 0.0001;

/** `projects` x `perProject` running herdr tasks, each with the op-lock file its dispatch left. */
function world(projects: number, perProject: number) {
  const w = benchWorld();
  const root = join(w.home, ".vexillum");
  const bin = join(w.base, "bin");
  mkdirSync(bin);
  const agents: unknown[] = [];
  for (let p = 0; p < projects; p++) {
    const paths = projectPaths(root, join(w.base, `proj${p}`));
    mkdirSync(paths.tasksDir, { recursive: true });
    mkdirSync(paths.statesDir, { recursive: true });
    ensureProjectRecord(paths);
    for (let t = 0; t < perProject; t++) {
      const id = (0x7000000000000000n + BigInt(p * 10_000 + t)).toString(16);
      const name = `vx-p${p}-t${t}`;
      const pane = `w1:p${p * perProject + t + 1}`;
      taskFile(paths, id, { backend: "herdr", herdr_agent_name: name, herdr_pane_id: pane });
      writeFileSync(join(paths.tasksDir, `.${id}.op.lock`), "");
      agents.push({ agent: "claude", agent_status: "working", name, pane_id: pane, tab_id: "w1:t1", workspace_id: "w1", state_change_seq: 3, revision: 1, terminal_id: "term_1", focused: false });
    }
  }
  const herdr = fakeHerdrList(bin, w.base, agents);
  return { w, root, env: { ...w.env, PATH: `${bin}:${w.env.PATH}` }, calls: herdr.calls };
}
type World = ReturnType<typeof world>;

// 1. In-process passes.
const small = world(20, 10);
const { cpu, perPass } = await timedPasses(small.root, small.env, small.calls, 60, 10);
console.log(`200 running tasks over 20 projects, ${perPass.length} in-process passes`);
console.log(`herdr processes per pass: ${[...new Set(perPass)].join(", ")} (goal 1); in-process CPU per pass: median ${median(cpu).toFixed(2)} ms`);

// 2. Binaries: vx and the floor, each with the runtime flags scripts/build.ts gives and with --smol toggled.
const out = join(small.w.base, "bins");
const flagSets = [[...VX_EXEC_ARGV], VX_EXEC_ARGV.includes("--smol") ? VX_EXEC_ARGV.filter((a) => a !== "--smol") : [...VX_EXEC_ARGV, "--smol"]];
const chosen = variants === "shipped" ? flagSets.slice(0, 1) : variants === "toggled" ? flagSets.slice(1) : flagSets;
const builds = chosen.map((execArgv, i) => ({ execArgv, vx: join(out, `vx${i}`), floor: join(out, `floor${i}`) }));
const here = resolve(import.meta.dir, "..");
for (const b of builds) {
  for (const [entry, outfile] of [
    [join(here, "src", "cli.ts"), b.vx],
    [join(here, "bench", "sentinel-floor.ts"), b.floor],
  ] as const) {
    const r = await Bun.build(vxBuildConfig({ entry, outfile, version: pkg.version, execArgv: b.execArgv }));
    if (!r.success) throw new Error(`could not build ${outfile}: ${r.logs.join("\n")}`);
  }
}

const mib = (k: number) => (k / 1024).toFixed(1);
type Mem = ReturnType<typeof smapsKiB>;
type Run = { cpuPerPass: number; samples: { n: number; m: Mem }[]; seconds: number };

/** Polls `argv` over `wd` until `n` passes (herdr calls), sampling memory 10 times and CPU after a 100-pass warm-up. */
async function daemon(label: string, wd: World, argv: string[], n: number): Promise<Run> {
  const before = wd.calls();
  const proc = Bun.spawn(argv, { cwd: wd.w.home, env: { ...wd.env, ...SENTINEL_RUNTIME_ENV, VX_TIME_SCALE: String(SCALE) }, stdout: "ignore", stderr: "inherit" });
  const every = Math.max(1, Math.round(n / 10));
  const samples: Run["samples"] = [];
  const warm = Math.min(100, Math.round(n / 10));
  let cpu0: { n: number; ms: number } | undefined;
  let cpuPerPass = Number.NaN;
  let next = every;
  const t0 = Date.now();
  while (next <= n && Date.now() - t0 < 40 * 60_000 && proc.exitCode === null) {
    await Bun.sleep(100);
    const done = wd.calls() - before;
    if (!cpu0 && done >= warm) cpu0 = { n: done, ms: procCpuMs(proc.pid) };
    if (done >= next) {
      const m = smapsKiB(proc.pid);
      samples.push({ n: done, m });
      // As it goes, so a long run shows its figures before it ends.
      console.log(`    ${label} ${done} passes: anonymous ${mib(m.anon)} MiB, RSS ${mib(m.rss)} MiB, PSS ${mib(m.pss)} MiB`);
      if (cpu0) cpuPerPass = (procCpuMs(proc.pid) - cpu0.ms) / (done - cpu0.n);
      next += every;
    }
  }
  if (proc.exitCode !== null) console.log(`${argv[0]} exited early with ${proc.exitCode}`);
  proc.kill("SIGTERM");
  await proc.exited;
  return { cpuPerPass, samples, seconds: (Date.now() - t0) / 1000 };
}

function memLine(label: string, r: Run, goal: number): string {
  if (r.samples.length === 0) return `  ${label}: no samples`;
  const a = r.samples.map((s) => s.m.anon);
  const first = r.samples[0]!;
  const last = r.samples.at(-1)!;
  // Least-squares slope of anonymous memory per 1,000 passes over the samples.
  const xs = r.samples.map((s) => s.n / 1000);
  const mx = xs.reduce((x, y) => x + y, 0) / xs.length;
  const my = a.reduce((x, y) => x + y, 0) / a.length;
  const slope = xs.reduce((s, x, i) => s + (x - mx) * (a[i]! - my), 0) / (xs.reduce((s, x) => s + (x - mx) ** 2, 0) || 1);
  // Samples land anywhere between a pass's allocations and its collection: +-0.5 MiB is that, not growth.
  const flat = Math.abs(last.m.anon - first.m.anon) <= Math.max(512, first.m.anon * 0.1);
  return [
    `  ${label}: anonymous ${mib(first.m.anon)} MiB at ${first.n} passes, ${mib(last.m.anon)} at ${last.n}, min ${mib(Math.min(...a))}, max ${mib(Math.max(...a))} (goal <= ${goal} MiB${goal === 10 ? " and flat" : ""}); slope ${slope.toFixed(0)} KiB per 1,000 passes, ${flat ? "flat" : "NOT flat"} (last within max(512 KiB, 10 %) of the first sample)`,
    `    context at the last sample: RSS ${mib(last.m.rss)} MiB, PSS ${mib(last.m.pss)} MiB`,
  ].join("\n");
}

async function compare(wd: World, tasks: number, n: number, goal: number): Promise<void> {
  const poll = DURATIONS.sentinelPoll * SCALE;
  for (const b of builds) {
    const flags = b.execArgv.length ? b.execArgv.join(" ") : "no flags";
    const vx = await daemon("vx", wd, [b.vx, "sentinel"], n);
    const floor = await daemon("floor", wd, [b.floor, wd.root, String(poll)], n);
    console.log(
      `${tasks} running tasks, ${n} passes each, compiled with execArgv [${flags}], started with ${Object.entries(SENTINEL_RUNTIME_ENV)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ")}, VX_TIME_SCALE=${SCALE} (${vx.seconds.toFixed(0)} s + ${floor.seconds.toFixed(0)} s):`,
    );
    console.log(
      `  CPU per pass: vx ${vx.cpuPerPass.toFixed(2)} ms, floor ${floor.cpuPerPass.toFixed(2)} ms, ratio ${(vx.cpuPerPass / floor.cpuPerPass).toFixed(2)}x${tasks === 200 ? " (goal <= 2.5x)" : ""}`,
    );
    console.log(memLine("vx", vx, goal));
    console.log(memLine("floor", floor, goal));
  }
}

if (passes > 0) await compare(small, 200, passes, 10);
if (bigPasses > 0) {
  const big = world(100, 50);
  await compare(big, 5_000, bigPasses, 40);
  big.w.dispose();
}
small.w.dispose();
