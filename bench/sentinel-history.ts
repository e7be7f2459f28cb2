#!/usr/bin/env bun
/**
 * An idle sentinel as a project's history grows: CPU per in-process pass over 20 projects with no running task
 * and 0, 1,000 or 10,000 finished tasks between them (done, failed, and shipped with a recorded pane but no
 * leased camp), against the same projects with none (the baseline). The first two passes read every task file;
 * later ones leave a finished task's unchanged file unread (sentinel/history.ts), so this shows what each finished
 * task costs an idle sentinel every poll (5 s), and what the first pass after a start costs.
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

const FINISHED = [{ status: "done" }, { status: "failed" }, { status: "shipped", backend: "tmux", tmux_target: "%1" }];

/** CPU ms of the first idle pass and the median of the later ones, with `finished` tasks spread evenly over the projects. */
async function cpuPerPass(finished: number): Promise<{ first: number; later: number }> {
  const w = benchWorld();
  try {
    const root = join(w.home, ".vexillum");
    for (let p = 0; p < PROJECTS; p++) {
      const paths = projectPaths(root, join(w.base, `proj${p}`));
      mkdirSync(paths.tasksDir, { recursive: true });
      ensureProjectRecord(paths);
      for (let t = 0; t < finished / PROJECTS; t++) {
        taskFile(paths, (0x7000000000000000n + BigInt(p * 100_000 + t)).toString(16), { backend: "tmux", ...FINISHED[t % FINISHED.length] });
      }
    }
    // The clock that says how long a file stayed unchanged runs 1,000 times faster, so the settle margin (3 s) passes
    // between two passes here as it does between a sentinel's, 5 s apart.
    const fileClock = { monotonic: () => performance.now() * 1000 };
    const { cpu } = await timedPasses(root, w.env, () => 0, passes + warmup, 0, { fileClock });
    return { first: cpu[0]!, later: median(cpu.slice(warmup)) };
  } finally {
    w.dispose();
  }
}

const base = (await cpuPerPass(0)).later;
console.log(`idle pass over ${PROJECTS} projects, ${passes} in-process passes each (median CPU of the passes after the first five):`);
console.log(`  no finished task (baseline): ${base.toFixed(2)} ms`);
for (const n of [1_000, 10_000]) {
  const { first, later } = await cpuPerPass(n);
  const share = (100 * later) / DURATIONS.sentinelPoll;
  console.log(
    `  ${n.toLocaleString("en")} finished tasks: ${later.toFixed(2)} ms, ${(later / base).toFixed(1)}x the baseline, ${((1000 * (later - base)) / n).toFixed(1)} us per finished task; ${share.toFixed(2)} % of a CPU at the 5 s poll; the first pass ${first.toFixed(1)} ms`,
  );
}
