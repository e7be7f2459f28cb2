#!/usr/bin/env bun
/**
 * The tmux backend, measured on a private tmux server (TMUX_TMPDIR in a temp dir):
 * 1. In-process passes over 200 running tmux soldiers in 20 projects, every one reporting
 *    `working`: tmux processes per pass (goal 1: one `list-panes -a`) and the sentinel's CPU per
 *    pass, against the same 200 soldiers on herdr (a `herdr` answering `agent list` from a file)
 *    in the same run.
 * 2. Soldier idle -> wake: the compiled `vx sentinel` at real timing with one tmux soldier; the
 *    soldier's `vx report idle` is written and the time until its wake file appears is taken,
 *    N times (stabilization included: one 1 s re-read).
 * Usage: bun run build && bun bench/tmux-soldiers.ts [runs=20]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeSoldierState } from "../src/state/soldier-state";
import { acquireCamp } from "../src/camps/pool";
import { realExec } from "../src/exec";
import { TRAILER } from "../src/lifecycle/evidence";
import { projectPaths } from "../src/state/paths";
import { ensureProjectRecord } from "../src/state/project-record";
import { createTask } from "../src/state/tasks";
import { VX, benchWorld, fakeHerdrList, median, run, runningTask, taskFile, timedPasses } from "./lib";

const runs = Number(process.argv[2] ?? 20);
const w = benchWorld();
const root = join(w.home, ".vexillum");
const bin = join(w.base, "bin");
mkdirSync(bin);
const tmuxLog = join(w.base, "tmux-calls");
writeFileSync(tmuxLog, "");
const realTmux = Bun.which("tmux");
if (!realTmux) throw new Error("tmux is not on PATH");
// Counts the tmux processes the pass starts, then runs the real tmux.
writeFileSync(join(bin, "tmux"), `#!/bin/sh\necho "$1" >> ${tmuxLog}\nexec ${realTmux} "$@"\n`, { mode: 0o755 });
const env = { ...w.env, PATH: `${bin}:${w.env.PATH}`, TMUX_TMPDIR: w.base };
const tmux = (...args: string[]) => run([realTmux, ...args], w.home, env);
const tmuxCalls = () => readFileSync(tmuxLog, "utf8").split("\n").filter(Boolean).length;

// 1. Passes over 200 soldiers per backend.
const agents: unknown[] = [];
for (let p = 0; p < 20; p++) {
  const tmuxPaths = projectPaths(root, join(w.base, `tproj${p}`));
  const herdrPaths = projectPaths(root, join(w.base, `hproj${p}`));
  for (const paths of [tmuxPaths, herdrPaths]) {
    mkdirSync(paths.tasksDir, { recursive: true });
    ensureProjectRecord(paths);
  }
  for (let t = 0; t < 10; t++) {
    const n = p * 100 + t;
    const id = (0x7000000000000000n + BigInt(n)).toString(16);
    const session = `vx-p${p}-t${t}`;
    tmux("new-session", "-d", "-s", session, "--", "cat");
    taskFile(tmuxPaths, id, { backend: "tmux", tmux_target: session });
    writeSoldierState(tmuxPaths, { task_id: id, state: "working", at: new Date().toISOString() });
    const hid = (0x6000000000000000n + BigInt(n)).toString(16);
    taskFile(herdrPaths, hid, { backend: "herdr", herdr_agent_name: session, herdr_pane_id: `w1:p${n}` });
    agents.push({
      agent: "claude",
      agent_status: "working",
      name: session,
      pane_id: `w1:p${n}`,
      tab_id: "w1:t1",
      workspace_id: "w1",
      state_change_seq: 3,
      revision: 1,
      terminal_id: "term_1",
      focused: false,
    });
  }
}
const herdr = fakeHerdrList(bin, w.base, agents);

async function passes(keep: "tmux" | "herdr"): Promise<{ cpu: number[]; perPass: number[] }> {
  // Only one backend's projects are listed: the other's state dirs are moved aside meanwhile.
  return timedPasses(root, env, keep === "tmux" ? tmuxCalls : herdr.calls, 60, 10);
}

const projectsDir = join(root, "projects");
const aside = join(w.base, "aside");
mkdirSync(aside);
const { readdirSync, renameSync } = await import("node:fs");
const move = (prefix: string, from: string, to: string) => {
  for (const n of readdirSync(from).filter((x) => x.startsWith(prefix))) renameSync(join(from, n), join(to, n));
};
move("hproj", projectsDir, aside);
const t = await passes("tmux");
move("hproj", aside, projectsDir);
move("tproj", projectsDir, aside);
const h = await passes("herdr");
move("tproj", aside, projectsDir);
const fmt = (xs: number[]) => `median ${median(xs).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms`;
console.log(`200 running soldiers over 20 projects, ${t.cpu.length} in-process passes each`);
console.log(`tmux:  ${[...new Set(t.perPass)].join(", ")} tmux process(es) per pass (goal 1); CPU per pass ${fmt(t.cpu)}`);
console.log(`herdr: ${[...new Set(h.perPass)].join(", ")} herdr process(es) per pass; CPU per pass ${fmt(h.cpu)}`);
console.log(`tmux / herdr CPU per pass: ${(median(t.cpu) / median(h.cpu)).toFixed(2)}x`);
tmux("kill-server");

// 2. Soldier idle -> wake through the compiled sentinel at real timing.
const project = w.project;
const paths = projectPaths(root, project);
ensureProjectRecord(paths);
const sentinel = Bun.spawn([VX, "sentinel"], { cwd: w.home, env, stdout: "ignore", stderr: "ignore" });
const latencies: number[] = [];
try {
  await Bun.sleep(1500); // its first pass; each run below waits on the wake itself
  for (let i = 0; i < runs; i++) {
    const id = (0x5000000000000000n + BigInt(i)).toString(16);
    const camp = await acquireCamp(paths, { project, taskId: id, base: "main", exec: realExec });
    run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty", "-m", "work"], camp.path, env);
    const session = `vx-l${i}`;
    const soldier = join(bin, "soldier");
    writeFileSync(soldier, `#!/bin/sh\nprintf '%s\\n' '${TRAILER}' 'Done.'\nexec cat\n`, { mode: 0o755 });
    tmux("new-session", "-d", "-s", session, "-c", camp.path, "--", soldier);
    await createTask(paths, runningTask(id, { camp_slot: camp.slot, camp_path: camp.path, camp_branch: camp.branch, camp_base: "main", backend: "tmux", tmux_target: session }));
    writeSoldierState(paths, { task_id: id, state: "working", at: new Date().toISOString() });
    await Bun.sleep(300); // let a pass see it working first, as a real soldier's turn would
    const t0 = performance.now();
    writeSoldierState(paths, { task_id: id, state: "idle", at: new Date().toISOString() });
    const wake = join(paths.wakesDir, `${id}.json`);
    while (!existsSync(wake)) {
      if (performance.now() - t0 > 30_000) throw new Error(`no wake for ${id} after 30 s`);
      await Bun.sleep(10);
    }
    latencies.push(performance.now() - t0);
  }
} finally {
  sentinel.kill("SIGTERM");
  await sentinel.exited;
  tmux("kill-server");
}
console.log(`soldier idle report -> wake file, ${latencies.length} runs at real timing (poll 5 s, stabilizing gap 1 s):`);
console.log(`  median ${median(latencies).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms, min ${Math.min(...latencies).toFixed(0)} ms`);
w.dispose();
