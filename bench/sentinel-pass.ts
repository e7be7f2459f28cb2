#!/usr/bin/env bun
/**
 * The sentinel at scale: 200 running tasks spread over 20 projects, every soldier working.
 * 1. In-process passes: herdr processes per pass (goal 1) and the sentinel's own CPU time per pass
 *    (goal <= 20 ms), against a `herdr` that answers `agent list` from a prepared file.
 * 2. The compiled `vx sentinel` polling at a tiny VX_TIME_SCALE: RSS sampled every 1,000 passes up
 *    to N passes (goal <= 40 MiB and flat), split into anonymous memory (the sentinel's own heap)
 *    and file-backed pages of the mapped binary (clean, shared, reclaimable).
 *    Twice: as `ensureSentinel` starts it, and with every JIT tier (the baseline), then the RSS of
 *    a compiled minimal program doing a pass's kinds of work (the runtime's floor).
 * Usage: bun run build && bun bench/sentinel-pass.ts [passes=3000]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SENTINEL_RUNTIME_ENV } from "../src/sentinel/ensure";
import { projectPaths } from "../src/state/paths";
import { ensureProjectRecord } from "../src/state/project-record";
import { VX, benchWorld, fakeHerdrList, median, rssKiB, run, taskFile, timedPasses } from "./lib";

const passes = Number(process.argv[2] ?? 3_000);
const w = benchWorld();
const root = join(w.home, ".vexillum");
const bin = join(w.base, "bin");
mkdirSync(bin);
const agents: unknown[] = [];
for (let p = 0; p < 20; p++) {
  const dir = join(w.base, `proj${p}`);
  const paths = projectPaths(root, dir);
  mkdirSync(paths.tasksDir, { recursive: true });
  ensureProjectRecord(paths);
  for (let t = 0; t < 10; t++) {
    const id = (0x7000000000000000n + BigInt(p * 100 + t)).toString(16);
    const name = `vx-p${p}-t${t}`;
    const pane = `w1:p${p * 10 + t + 1}`;
    taskFile(paths, id, { backend: "herdr", herdr_agent_name: name, herdr_pane_id: pane });
    agents.push({ agent: "claude", agent_status: "working", name, pane_id: pane, tab_id: "w1:t1", workspace_id: "w1", state_change_seq: 3, revision: 1, terminal_id: "term_1", focused: false });
  }
}
const herdr = fakeHerdrList(bin, w.base, agents);
const env = { ...w.env, PATH: `${bin}:${w.env.PATH}` };
const calls = herdr.calls;

// 1. In-process passes.
const { cpu, perPass } = await timedPasses(root, env, calls, 60, 10);
console.log(`200 running tasks over 20 projects, ${perPass.length} in-process passes`);
console.log(`herdr processes per pass: ${[...new Set(perPass)].join(", ")} (goal 1)`);
console.log(`sentinel CPU per pass: median ${median(cpu).toFixed(2)} ms, max ${Math.max(...cpu).toFixed(2)} ms (goal <= 20 ms)`);

// 2. The compiled sentinel, sampled while it polls: as `ensureSentinel` starts it (its runtime
// settings) and, as the baseline in the same run, with every JIT tier; then the runtime's floor.
const mib = (k: number) => (k / 1024).toFixed(1);
const rssLine = (m: { total: number; anon: number; file: number }) => `RSS ${mib(m.total)} MiB (anonymous ${mib(m.anon)} MiB, file-backed ${mib(m.file)} MiB)`;

/** Samples RSS every 1,000 passes and the process's own CPU per pass (from /proc) over the run. */
async function sampleSentinel(label: string, extra: Record<string, string>): Promise<number | undefined> {
  const callsBefore = calls();
  const proc = Bun.spawn([VX, "sentinel"], { cwd: w.home, env: { ...env, ...extra, VX_TIME_SCALE: "0.0001" }, stdout: "ignore", stderr: "inherit" });
  const samples: string[] = [];
  let next = 1000;
  let last: number | undefined;
  const t0 = Date.now();
  const deadline = Date.now() + 10 * 60_000;
  const cpu0 = { passes: 0, ms: 0 };
  let cpuPerPass = "";
  while (next <= passes && Date.now() < deadline && proc.exitCode === null) {
    await Bun.sleep(200);
    const n = calls() - callsBefore;
    if (cpu0.passes === 0 && n >= 100) Object.assign(cpu0, { passes: n, ms: procCpuMs(proc.pid) });
    if (n >= next) {
      const m = rssKiB(proc.pid);
      last = m.total;
      samples.push(`${n} passes: ${rssLine(m)}`);
      cpuPerPass = ((procCpuMs(proc.pid) - cpu0.ms) / (n - cpu0.passes)).toFixed(1);
      next += 1000;
    }
  }
  if (proc.exitCode !== null) console.log(`sentinel exited early with ${proc.exitCode}`);
  proc.kill("SIGTERM");
  await proc.exited;
  console.log(`compiled sentinel, ${label} (VX_TIME_SCALE=0.0001, ${((Date.now() - t0) / 1000).toFixed(0)} s, CPU ${cpuPerPass} ms per pass):`);
  for (const s of samples) console.log(`  ${s}`);
  return last;
}

/** utime + stime of a process, in ms (USER_HZ is 100 on Linux). */
function procCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

/**
 * The runtime's floor: a compiled 6-line Bun program doing only what a pass cannot do without (a
 * child process, a kernel lock through bun:ffi, a directory watch, a JSON file round trip) every
 * 5 ms. What the sentinel holds above it is vx's own.
 */
async function floorRss(extra: Record<string, string>): Promise<{ total: number; anon: number; file: number }> {
  const src = join(w.base, "floor.ts");
  writeFileSync(
    src,
    [
      'import { dlopen, FFIType } from "bun:ffi"; import { watch, readFileSync, writeFileSync } from "node:fs";',
      'const libc = dlopen(process.platform === "darwin" ? "libc.dylib" : "libc.so.6", { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } });',
      `const dir = ${JSON.stringify(w.base)}; watch(dir, () => {});`,
      'setInterval(async () => { const p = Bun.spawn(["true"], { stdout: "pipe" }); await new Response(p.stdout).text(); await p.exited;',
      '  libc.symbols.flock(0, 8); writeFileSync(`${dir}/floor.json`, JSON.stringify({ t: Date.now() })); JSON.parse(readFileSync(`${dir}/floor.json`, "utf8")); }, 5);',
    ].join("\n"),
  );
  const out = join(w.base, "floor");
  if (!existsSync(out)) run([process.execPath, "build", "--compile", "--minify", src, "--outfile", out], w.base, env);
  const proc = Bun.spawn([out], { stdout: "ignore", stderr: "inherit", env: { ...process.env, ...extra } });
  await Bun.sleep(10_000);
  const m = rssKiB(proc.pid);
  proc.kill();
  await proc.exited;
  return m;
}

const shipped = await sampleSentinel(
  `as started (${Object.entries(SENTINEL_RUNTIME_ENV)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ")})`,
  SENTINEL_RUNTIME_ENV,
);
const allTiers = await sampleSentinel("baseline: every JIT tier", {});
const floorAll = await floorRss({});
console.log(`runtime floor (spawn + ffi flock + watch + JSON every 5 ms, compiled), every tier: ${rssLine(floorAll)}`);
const floor = await floorRss(SENTINEL_RUNTIME_ENV);
console.log(`runtime floor, the sentinel's runtime settings: ${rssLine(floor)}`);
if (shipped && allTiers) {
  console.log(`as started vs every tier: ${(shipped / allTiers).toFixed(2)}x; above the runtime floor with the same settings: ${mib(shipped - floor.total)} MiB (goal: total <= 40 MiB)`);
}
w.dispose();
