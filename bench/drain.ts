#!/usr/bin/env bun
/**
 * `vx sentinel drain` with nothing pending (the Stop hook's every-turn case) against a compiled
 * empty Bun program, interleaved in one run. Goal: at most 1.3x. Beside them, the empty program
 * built like vx (scripts/build-options.ts) and the same with `--smol`, which vx's build no longer sets.
 * Usage: bun run build && bun bench/drain.ts [runs]
 */
import { VX, benchWorld, emptyBinary, interleaved } from "./lib";

const runs = Number(process.argv[2] ?? 100);
const w = benchWorld({ HERDR_WORKSPACE_ID: "w1" });
const empty = await emptyBinary(w.base);
const same = await emptyBinary(w.base, true);
const smol = await emptyBinary(w.base, true, ["--smol"]);
const [e, e2, e3, d, dNoPane] = interleaved(
  [
    { argv: [empty], cwd: w.project, env: w.env },
    { argv: [same], cwd: w.project, env: w.env },
    { argv: [smol], cwd: w.project, env: w.env },
    { argv: [VX, "sentinel", "drain"], cwd: w.project, env: w.env },
    { argv: [VX, "sentinel", "drain"], cwd: w.project, env: { ...w.env, HERDR_WORKSPACE_ID: "" } },
  ],
  runs,
);
w.dispose();
console.log(`runs: ${runs} each, interleaved`);
console.log(`empty bun binary:                      median ${e.toFixed(2)} ms`);
console.log(`empty, built like vx:                  median ${e2.toFixed(2)} ms`);
console.log(`empty, built like vx with --smol:      median ${e3.toFixed(2)} ms  (${(e3 / e2).toFixed(2)}x like vx)`);
console.log(`vx sentinel drain (herdr pane, empty): median ${d.toFixed(2)} ms  ratio ${(d / e).toFixed(2)}x (${(d / e2).toFixed(2)}x vs like-vx)`);
console.log(`vx sentinel drain (outside herdr):     median ${dNoPane.toFixed(2)} ms  ratio ${(dNoPane / e).toFixed(2)}x (${(dNoPane / e2).toFixed(2)}x vs like-vx)`);
