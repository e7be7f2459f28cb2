#!/usr/bin/env bun
/**
 * Start-up cost of `dist/vx status` in an empty, initialized project against a compiled empty Bun
 * program, measured in the same run (interleaved, so machine noise hits both alike): wall time, then
 * the CPU each run cost (`vx --version` beside it: the start alone, no command run; and `vx report
 * working`, which a soldier's hooks run on every event, recording a task's state as a hook does).
 * Usage: bun run build && bun bench/startup.ts [runs]
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { projectPaths } from "../src/state/paths";
import { VX, benchWorld, emptyBinary, interleaved, interleavedCpu, taskFile } from "./lib";

const runs = Number(process.argv[2] ?? 60);
const w = benchWorld();
// A task for the report to name (VX_TASK_ID, as a hook outside its camp gives it): its state file is written each run.
const TASK = "0123456789abcdef";
const paths = projectPaths(join(w.home, ".vexillum"), w.project);
mkdirSync(paths.tasksDir, { recursive: true });
taskFile(paths, TASK, {});
const empty = await emptyBinary(w.base);
const same = await emptyBinary(w.base, true);
const [e, e2, s] = interleaved(
  [
    { argv: [empty], cwd: w.project, env: w.env },
    { argv: [same], cwd: w.project, env: w.env },
    { argv: [VX, "status"], cwd: w.project, env: w.env },
  ],
  runs,
);
const [ce, cv, cs, cr] = interleavedCpu(
  [
    { argv: [same], cwd: w.project, env: w.env },
    { argv: [VX, "--version"], cwd: w.project, env: w.env },
    { argv: [VX, "status"], cwd: w.project, env: w.env },
    { argv: [VX, "report", "working"], cwd: w.project, env: { ...w.env, VX_TASK_ID: TASK } },
  ],
  runs,
);
w.dispose();
console.log(`runs: ${runs} each, interleaved`);
console.log(`empty bun binary:                 median ${e.toFixed(2)} ms`);
console.log(`empty, built like vx:              median ${e2.toFixed(2)} ms`);
console.log(`vx status:                        median ${s.toFixed(2)} ms`);
console.log(`ratio vx status / empty:          ${(s / e).toFixed(2)}x`);
console.log(`ratio vx status / empty like vx:  ${(s / e2).toFixed(2)}x`);
console.log(
  `CPU (user + system), median: empty like vx ${ce!.toFixed(1)} ms, vx --version ${cv!.toFixed(1)} ms (${(cv! / ce!).toFixed(2)}x), vx status ${cs!.toFixed(1)} ms (${(cs! / ce!).toFixed(2)}x), vx report working ${cr!.toFixed(1)} ms (${(cr! / ce!).toFixed(2)}x)`,
);
