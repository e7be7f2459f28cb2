#!/usr/bin/env bun
/**
 * An idle sentinel as a project's history grows: CPU per in-process pass over 20 projects with no running task
 * and 0, 1,000 or 10,000 finished (done) tasks between them, against the same projects with none (the baseline).
 * A pass reads every task file, finished or not, so this shows what each finished task costs an idle sentinel
 * every poll (5 s). No goal yet: it measures a cost the pass's design has today.
 * Usage: bun run build && bun bench/sentinel-history.ts [passes=30]
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { projectPaths } from "../src/state/paths";
import { ensureProjectRecord } from "../src/state/project-record";
import { DURATIONS } from "../src/time";
import { benchWorld, median, taskFile, timedPasses } from "./lib";

const PROJECTS = 20;
const passes = Number(process.argv[2] ?? 30);
const warmup = 5;

/** Median CPU ms per idle pass with `finished` done tasks spread evenly over the projects. */
async function cpuPerPass(finished: number): Promise<number> {
  const w = benchWorld();
  try {
    const root = join(w.home, ".vexillum");
    for (let p = 0; p < PROJECTS; p++) {
      const paths = projectPaths(root, join(w.base, `proj${p}`));
      mkdirSync(paths.tasksDir, { recursive: true });
      ensureProjectRecord(paths);
      for (let t = 0; t < finished / PROJECTS; t++) {
        taskFile(paths, (0x7000000000000000n + BigInt(p * 100_000 + t)).toString(16), { status: "done", backend: "tmux" });
      }
    }
    const { cpu } = await timedPasses(root, w.env, () => 0, passes + warmup, warmup);
    return median(cpu);
  } finally {
    w.dispose();
  }
}

const base = await cpuPerPass(0);
console.log(`idle pass over ${PROJECTS} projects, ${passes} in-process passes each (median CPU per pass):`);
console.log(`  no finished task (baseline): ${base.toFixed(2)} ms`);
for (const n of [1_000, 10_000]) {
  const ms = await cpuPerPass(n);
  const share = (100 * ms) / DURATIONS.sentinelPoll;
  console.log(
    `  ${n.toLocaleString("en")} finished tasks: ${ms.toFixed(2)} ms, ${(ms / base).toFixed(1)}x the baseline, ${((1000 * (ms - base)) / n).toFixed(1)} us per finished task; ${share.toFixed(2)} % of a CPU at the 5 s poll`,
  );
}
