#!/usr/bin/env bun
/**
 * Landing 20 disjoint missions (issue 28, CMD-LAND-06): `vx land --all` against the way before it, one `vx land` per mission
 * with every branch after the first rebased first, as its soldier had to (here by plain git, without the model turn a
 * soldier spends on it). Each run sets up a real repository and 20 camps from the real pool, each mission committing its own
 * file. Prints the wall times, the model turns each way needs, and the ratio.
 * Usage: bun run build && bun bench/land-many.ts [missions] [rounds]
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireCamp } from "../src/camps/pool";
import { realExec } from "../src/exec";
import { newTaskId } from "../src/state/ids";
import { projectPaths } from "../src/state/paths";
import { ensureProjectRecord } from "../src/state/project-record";
import { createTask, loadTask } from "../src/state/tasks";
import { VX, benchWorld, median, run } from "./lib";

const missions = Number(process.argv[2] ?? 20);
const rounds = Number(process.argv[3] ?? 3);
const IDENTITY = {
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@bench.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@bench.invalid",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
};

type Troop = { world: ReturnType<typeof benchWorld>; ids: string[]; camps: string[]; done(): number };

/** A project with `n` idle missions in flight, each having committed its own file in its camp; tmux soldiers already gone. */
async function troop(n: number): Promise<Troop> {
  const world = benchWorld(IDENTITY);
  run(["git", "add", "-A"], world.project, world.env);
  run(["git", "commit", "-q", "-m", "vx init"], world.project, world.env);
  const paths = projectPaths(join(world.home, ".vexillum"), world.project);
  ensureProjectRecord(paths);
  const ids: string[] = [];
  const camps: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = newTaskId();
    const camp = await acquireCamp(paths, { project: world.project, taskId: id, base: "main", exec: realExec });
    const at = new Date().toISOString();
    await createTask(paths, {
      id,
      schema_version: 1,
      kind: "mission",
      prompt: `mission ${i}`,
      status: "done",
      created_at: at,
      updated_at: at,
      camp_slot: camp.slot,
      camp_path: camp.path,
      camp_branch: camp.branch,
      camp_base: "main",
      backend: "tmux",
      tmux_target: `vx-bench-${id}`,
      tmux_socket: join(world.base, "no-tmux-server"),
      harness: "claude",
    });
    writeFileSync(join(camp.path, `mission-${i}.txt`), `mission ${i}\n`);
    run(["git", "add", "-A"], camp.path, world.env);
    run(["git", "commit", "-q", "-m", `mission ${i}`], camp.path, world.env);
    ids.push(id);
    camps.push(camp.path);
  }
  const done = () => ids.filter((id) => loadTask(paths, id)?.value.landed_commit).length;
  return { world, ids, camps, done };
}

function vx(args: string[], t: Troop): void {
  const r = Bun.spawnSync([VX, ...args], { cwd: t.world.project, env: t.world.env, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`vx ${args.join(" ")} exited ${r.exitCode}: ${r.stderr.toString()}`);
}

/** `vx land --all`: one command, no soldier. */
async function landAll(): Promise<number> {
  const t = await troop(missions);
  const t0 = Bun.nanoseconds();
  vx(["land", "--all"], t);
  const ms = (Bun.nanoseconds() - t0) / 1e6;
  if (t.done() !== missions) throw new Error(`land --all landed ${t.done()} of ${missions}`);
  t.world.dispose();
  return ms;
}

/** The baseline: one fast-forward land each; every branch after the first rebased in its camp first, as its soldier did. */
async function oneByOne(): Promise<number> {
  const t = await troop(missions);
  const t0 = Bun.nanoseconds();
  t.ids.forEach((id, i) => {
    if (i > 0) run(["git", "rebase", "--quiet", "main"], t.camps[i] as string, t.world.env);
    vx(["land", id], t);
  });
  const ms = (Bun.nanoseconds() - t0) / 1e6;
  if (t.done() !== missions) throw new Error(`one by one landed ${t.done()} of ${missions}`);
  t.world.dispose();
  return ms;
}

const all: number[] = [];
const each: number[] = [];
for (let r = 0; r < rounds; r++) {
  all.push(await landAll());
  each.push(await oneByOne());
}
const a = median(all);
const b = median(each);
console.log(`missions: ${missions} disjoint (each its own file), rounds: ${rounds}`);
console.log(`vx land --all: ${a.toFixed(0)} ms wall (median), model turns spent: 0`);
console.log(`baseline, vx land one by one with fast-forwards: ${b.toFixed(0)} ms wall (median) plus ${missions - 1} soldier rebases, each a model turn (not timed here)`);
console.log(`ratio (baseline wall / land --all wall): ${(b / a).toFixed(2)}`);
