/**
 * A world for sentinel tests: a temp HOME with projects, tasks written as files, and the fake herdr
 * on PATH. Passes run in-process against the real fake herdr processes with a fake clock.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmuxBackend } from "../src/backends/tmux/survey";
import { acquireCamp } from "../src/camps/pool";
import { TRAILER } from "../src/lifecycle/evidence";
import { realExec } from "../src/exec";
import { type PassCtx, newMemory } from "../src/sentinel/pass";
import { NOMINAL_WINDOWS } from "../src/lifecycle/decide";
import { type ProjectPaths, projectPaths } from "../src/state/paths";
import { ensureProjectRecord } from "../src/state/project-record";
import type { SoldierWake, Task } from "../src/state/schemas";
import { compactTask, taskPath } from "../src/state/tasks";
import { renderState } from "../src/state/record";
import { writeSoldierWake } from "../src/wakes/queue";
import { fakeClock } from "./deps";
import { installFakeHerdr } from "./fakes/herdr-control";
import { memoryTmux } from "./fakes/tmux-memory";
import { type Sandbox, git, sandbox } from "./helpers";

export const T0 = Date.parse("2026-11-30T12:00:00.000Z");
export const iso = (ms: number) => new Date(ms).toISOString();

let seq = 0;
export function taskId(): string {
  return (0xabc0000000000000n + BigInt(++seq)).toString(16).padStart(16, "0").slice(-16);
}

export type World = Sandbox & {
  herdr: ReturnType<typeof installFakeHerdr>;
  root: string;
  logs: string[];
  clock: ReturnType<typeof fakeClock>;
  ctx: PassCtx;
  /** A project directory (a real git repo) and its state paths, with project.json recorded. */
  addProject(name?: string): { dir: string; paths: ProjectPaths };
  writeTask(paths: ProjectPaths, t: Partial<Task> & { id: string }): Task;
};

export function world(): World {
  const s = sandbox();
  const herdr = installFakeHerdr(s.bin);
  Object.assign(s.env, herdr);
  const root = join(s.home, ".vexillum");
  const logs: string[] = [];
  const clock = fakeClock(T0 + 60_000);
  const mainProject = s.project;
  const ctx: PassCtx = {
    root,
    exec: realExec,
    clock,
    env: s.env,
    log: (m) => logs.push(m),
    windows: NOMINAL_WINDOWS,
    memory: newMemory(),
  };
  const w = Object.assign(s, {
    herdr,
    root,
    logs,
    clock,
    ctx,
    addProject(name?: string) {
      let dir = mainProject;
      if (name) {
        dir = join(mainProject, "..", name);
        mkdirSync(dir, { recursive: true });
        git(dir, "init", "-q", "-b", "main");
        git(dir, "commit", "-q", "--allow-empty", "-m", "initial");
      }
      const paths = projectPaths(root, dir);
      mkdirSync(paths.tasksDir, { recursive: true });
      ensureProjectRecord(paths);
      return { dir, paths };
    },
    writeTask(paths: ProjectPaths, t: Partial<Task> & { id: string }): Task {
      const task: Task = {
        schema_version: 1,
        kind: "mission",
        prompt: "do the thing",
        status: "running",
        created_at: iso(T0),
        updated_at: iso(T0),
        backend: "herdr",
        harness: "claude",
        ...t,
      };
      writeFileSync(taskPath(paths, task.id), renderState(compactTask(task)));
      return task;
    },
  });
  return w;
}

/** A world whose tmux soldiers live in an in-memory tmux (the real client is tested on real tmux). */
export function tmuxWorld(): World & { tmux: ReturnType<typeof memoryTmux> } {
  const w = world();
  const tmux = memoryTmux();
  w.ctx.backends = { tmux: tmuxBackend(() => tmux) };
  return Object.assign(w, { tmux });
}

/**
 * A running tmux mission in a leased camp holding one commit, its pane (session `vx-m`) showing a
 * finished turn; `over` is applied to the task. Returns its id.
 */
export async function finishedTmuxMission(w: ReturnType<typeof tmuxWorld>, project: { dir: string; paths: ProjectPaths }, over: Partial<Task> = {}): Promise<string> {
  const id = taskId();
  const camp = await acquireCamp(project.paths, { project: project.dir, taskId: id, base: "main", exec: realExec });
  git(camp.path, "commit", "-q", "--allow-empty", "-m", "work");
  w.tmux.add("vx-m", { text: `> prompt\n${TRAILER}\n⏺ Fixed it and committed.\n` });
  w.writeTask(project.paths, { id, backend: "tmux", tmux_target: "vx-m", camp_path: camp.path, camp_branch: camp.branch, camp_base: "main", camp_slot: camp.slot, ...over });
  return id;
}

/**
 * `entry` registered as the project's `harness` commander, and a done task with its pending wake:
 * what the sentinel's delivery to a hook-less commander starts from.
 */
export function commanderWithWake(w: World, paths: ProjectPaths, harness: string, entry: Record<string, unknown>) {
  writeFileSync(paths.commandersFile, JSON.stringify({ schema_version: 1, commanders: { [harness]: entry } }, null, 2));
  const id = taskId();
  w.writeTask(paths, { id, status: "done" });
  const wake: SoldierWake = { task_id: id, kind: "mission", old_status: "running", new_status: "done", detected_at: iso(T0 + 1000) };
  const wakePath = writeSoldierWake(paths.root, paths.wakesDir, wake);
  const queued = () => readdirSync(paths.wakesDir).filter((n) => n.endsWith(".json"));
  return { id, wake, wakePath, queued };
}
