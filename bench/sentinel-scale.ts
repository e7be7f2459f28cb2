#!/usr/bin/env bun
/**
 * The sentinel pass as the fleet grows: the sentinel's own CPU per in-process pass at 500 and at
 * 5,000 running tasks over 50 projects, every soldier working, herdr's `agent list` as long as the
 * fleet and answered from a prepared file (herdr's own time left out). Goal: 5,000 tasks cost at
 * most 10x what 500 do, so a pass's work per task does not grow with the fleet.
 * Usage: bun run build && bun bench/sentinel-scale.ts [passes=20]
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { projectPaths } from "../src/state/paths";
import { ensureProjectRecord } from "../src/state/project-record";
import { benchWorld, fakeHerdrList, median, taskFile, timedPasses } from "./lib";

const PROJECTS = 50;
const passes = Number(process.argv[2] ?? 20);
const warmup = 5;

/** Median CPU ms per pass with `tasks` running tasks spread evenly over the projects. */
async function cpuPerPass(tasks: number): Promise<number> {
  const w = benchWorld();
  try {
    const root = join(w.home, ".vexillum");
    const bin = join(w.base, "bin");
    mkdirSync(bin);
    const agents: unknown[] = [];
    for (let p = 0; p < PROJECTS; p++) {
      const paths = projectPaths(root, join(w.base, `proj${p}`));
      mkdirSync(paths.tasksDir, { recursive: true });
      ensureProjectRecord(paths);
      for (let t = 0; t < tasks / PROJECTS; t++) {
        const id = (0x7000000000000000n + BigInt(p * 10_000 + t)).toString(16);
        const name = `vx-p${p}-t${t}`;
        const pane = `w1:p${p * 1000 + t + 1}`;
        taskFile(paths, id, { backend: "herdr", herdr_agent_name: name, herdr_pane_id: pane });
        agents.push({ agent: "claude", agent_status: "working", name, pane_id: pane, tab_id: "w1:t1", workspace_id: "w1", state_change_seq: 3 });
      }
    }
    const herdr = fakeHerdrList(bin, w.base, agents);
    const { cpu, perPass } = await timedPasses(root, { ...w.env, PATH: `${bin}:${w.env.PATH}` }, herdr.calls, passes + warmup, warmup);
    const ms = median(cpu);
    console.log(
      `${tasks} running tasks over ${PROJECTS} projects, ${agents.length} agents listed: CPU per pass median ${ms.toFixed(2)} ms, max ${Math.max(...cpu).toFixed(2)} ms; herdr processes per pass ${[...new Set(perPass)].join(", ")}`,
    );
    return ms;
  } finally {
    w.dispose();
  }
}

const small = await cpuPerPass(500);
const large = await cpuPerPass(5_000);
console.log(`5,000 / 500: ${(large / small).toFixed(1)}x (goal <= 10x)`);
