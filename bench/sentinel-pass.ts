#!/usr/bin/env bun
/**
 * The sentinel at scale: 200 running tasks spread over 20 projects, every soldier working.
 * 1. In-process passes: herdr processes per pass (goal 1) and the sentinel's own CPU time per pass
 *    (goal <= 20 ms), against a `herdr` that answers `agent list` from a prepared file.
 * 2. The compiled `vx sentinel` polling at a tiny VX_TIME_SCALE: RSS sampled every 1,000 passes up
 *    to N passes (goal <= 40 MiB and flat), split into anonymous memory (the sentinel's own heap)
 *    and file-backed pages of the mapped binary (clean, shared, reclaimable).
 * Usage: bun run build && bun bench/sentinel-pass.ts [passes=10000]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHerdrClient } from "../src/backends/herdr";
import { realExec } from "../src/exec";
import { NOMINAL_WINDOWS } from "../src/sentinel/decide";
import { newMemory, runPass } from "../src/sentinel/pass";
import { projectPaths } from "../src/state/paths";
import { ensureProjectRecord } from "../src/state/project-record";
import { realClock } from "../src/time";
import { VX, benchWorld, fakeHerdrList, median, rssKiB } from "./lib";

const passes = Number(process.argv[2] ?? 10_000);
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
    writeFileSync(
      join(paths.tasksDir, `${id}.json`),
      JSON.stringify({ id, schema_version: 1, kind: "mission", prompt: "bench", status: "running", created_at: "2026-11-30T10:00:00Z", updated_at: "2026-11-30T10:00:00Z", backend: "herdr", harness: "claude", herdr_agent_name: name, herdr_pane_id: pane }),
    );
    agents.push({ agent: "claude", agent_status: "working", name, pane_id: pane, tab_id: "w1:t1", workspace_id: "w1", state_change_seq: 3, revision: 1, terminal_id: "term_1", focused: false });
  }
}
const herdr = fakeHerdrList(bin, w.base, agents);
const env = { ...w.env, PATH: `${bin}:${w.env.PATH}` };
const calls = herdr.calls;

// 1. In-process passes.
const ctx = {
  root,
  exec: realExec,
  ops: { herdr: createHerdrClient({ exec: realExec, env }), clock: realClock, env },
  log: () => {},
  windows: NOMINAL_WINDOWS,
  memory: newMemory(),
};
const cpu: number[] = [];
const perPass: number[] = [];
for (let i = 0; i < 60; i++) {
  const before = calls();
  const u0 = process.cpuUsage();
  await runPass(ctx);
  const u = process.cpuUsage(u0);
  if (i >= 10) cpu.push((u.user + u.system) / 1000);
  perPass.push(calls() - before);
}
console.log(`200 running tasks over 20 projects, ${perPass.length} in-process passes`);
console.log(`herdr processes per pass: ${[...new Set(perPass)].join(", ")} (goal 1)`);
console.log(`sentinel CPU per pass: median ${median(cpu).toFixed(2)} ms, max ${Math.max(...cpu).toFixed(2)} ms (goal <= 20 ms)`);

// 2. The compiled sentinel, sampled while it polls.
const callsBefore = calls();
const proc = Bun.spawn([VX, "sentinel"], { cwd: w.home, env: { ...env, VX_TIME_SCALE: "0.0001" }, stdout: "ignore", stderr: "inherit" });
const samples: string[] = [];
let next = 1000;
const t0 = Date.now();
const deadline = Date.now() + 10 * 60_000;
while (next <= passes && Date.now() < deadline && proc.exitCode === null) {
  await Bun.sleep(200);
  const n = calls() - callsBefore;
  if (n >= next) {
    const m = rssKiB(proc.pid);
    const mib = (k: number) => (k / 1024).toFixed(1);
    samples.push(`${n} passes: RSS ${mib(m.total)} MiB (anonymous ${mib(m.anon)} MiB, file-backed ${mib(m.file)} MiB)`);
    next += 1000;
  }
}
if (proc.exitCode !== null) console.log(`sentinel exited early with ${proc.exitCode}`);
proc.kill("SIGTERM");
await proc.exited;
console.log(`compiled sentinel RSS (VX_TIME_SCALE=0.0001, ${((Date.now() - t0) / 1000).toFixed(0)} s):`);
for (const s of samples) console.log(`  ${s}`);
w.dispose();
