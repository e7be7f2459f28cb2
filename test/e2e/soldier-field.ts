/**
 * The test field for the soldier commands: an initialized project, the fake herdr on PATH with a
 * workspace whose root pane is the caller's (`HERDR_WORKSPACE_ID`, `HERDR_PANE_ID`), a short
 * `VX_TIME_SCALE`, seeded tasks with real camps, and disposal that stops every sentinel the test
 * started (by pid, verified first) before the directories go.
 */
import { join } from "node:path";
import { agentName, fallbackName } from "../../src/backends/soldier-name";
import { acquireCamp, releaseLease } from "../../src/camps/pool";
import { realExec } from "../../src/exec";
import { newTaskId } from "../../src/state/ids";
import { type ProjectPaths, projectPaths } from "../../src/state/paths";
import { ensureProjectRecord } from "../../src/state/project-record";
import type { Task } from "../../src/state/schemas";
import { createTask, loadTask } from "../../src/state/tasks";
import { type AgentStatus, type FakeHerdrEnv, addAgent, createTab, createWorkspace, installFakeHerdr } from "../fakes/herdr-control";
import { HARNESSES, LISTED_HARNESS_NAMES } from "../../src/harnesses";
import { type RunResult, type Sandbox, sandbox, stopSentinels, vx, writeExecutable } from "../helpers";
import { initProject } from "../init-project";

export type Field = Sandbox & {
  fh: FakeHerdrEnv;
  ws: { workspace_id: string; tab_id: string; pane_id: string };
  /** The environment vx runs with (fake herdr, herdr ids, time scale). */
  env: Record<string, string>;
  paths: ProjectPaths;
  /** Runs the compiled vx in the project; remembers the sentinels it auto-started. */
  run(args: string[], opts?: { cwd?: string; env?: Record<string, string> }): Promise<RunResult>;
  task(id: string): Task;
  [Symbol.asyncDispose](): Promise<void>;
};

const STARTED_RE = /auto-started sentinel \(pid (\d+)\)/g;

/** A fresh field; `scale` is VX_TIME_SCALE (0.02 makes the 15 s probe 300 ms). */
export async function field(opts: { scale?: string; init?: boolean; name?: string } = {}): Promise<Field> {
  const s = sandbox({ name: opts.name });
  const fh = installFakeHerdr(s.bin);
  // Every listed harness installed, as dispatch checks before anything starts; the fake herdr
  // never runs them (a test that needs one running writes its own over it).
  for (const name of LISTED_HARNESS_NAMES) writeExecutable(join(s.bin, HARNESSES[name].exe), "#!/bin/sh\nexit 0\n");
  const ws = createWorkspace(fh, { cwd: s.project });
  const env: Record<string, string> = {
    ...s.env,
    FAKE_HERDR_STATE: fh.FAKE_HERDR_STATE,
    FAKE_HERDR_LOG: fh.FAKE_HERDR_LOG,
    HERDR_WORKSPACE_ID: ws.workspace_id,
    HERDR_PANE_ID: ws.pane_id,
    VX_TIME_SCALE: opts.scale ?? "0.02",
  };
  if (opts.init !== false) await initProject(s.project, env);
  const paths = projectPaths(join(s.home, ".vexillum"), s.project);
  return Object.assign(s, { fh, ws }, fieldBase(s, env, paths));
}

/**
 * What every soldier field has: vx run in the project (remembering the sentinels it auto-started),
 * tasks read by id, and a disposal that stops those sentinels (by pid, verified) before `stop` and
 * the directories go.
 */
export function fieldBase(s: Sandbox, env: Record<string, string>, paths: ProjectPaths, stop: () => Promise<void> = async () => {}) {
  const started = new Set<number>();
  return {
    env,
    paths,
    async run(args: string[], o: { cwd?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
      const r = await vx(args, { cwd: o.cwd ?? s.project, env: o.env ?? env });
      for (const m of r.stderr.matchAll(STARTED_RE)) started.add(Number(m[1]));
      return r;
    },
    task(id: string): Task {
      const t = loadTask(paths, id)?.value;
      if (!t) throw new Error(`no task ${id}`);
      return t;
    },
    async [Symbol.asyncDispose]() {
      try {
        await stopSentinels(s.home, started);
      } finally {
        await stop();
        s[Symbol.dispose]();
      }
    },
  };
}

export type Seeded = { task: Task; name: string; tab_id: string; pane_id: string };

/**
 * A task as a finished dispatch leaves it: a leased camp, a herdr tab whose agent has
 * `agentStatus`, and the task file with `over` applied.
 */
export async function seedTask(f: Field, over: Partial<Task> & { agentStatus?: AgentStatus; leased?: boolean } = {}): Promise<Seeded> {
  const { agentStatus = "idle", leased = true, ...fields } = over;
  const id = newTaskId();
  const prompt = fields.prompt ?? "fix the login bug";
  // Unique per task, as herdr's name-taken fallback makes it, so seeded soldiers never share a name.
  const name = fallbackName(agentName(prompt, id), id);
  ensureProjectRecord(f.paths);
  const camp = await acquireCamp(f.paths, { project: f.paths.project, taskId: id, base: "main", exec: realExec });
  if (!leased) await releaseLease(f.paths, id);
  const tab = createTab(f.fh, f.ws.workspace_id, { cwd: camp.path, label: name });
  addAgent(f.fh, tab.pane_id, { name, kind: "claude", status: agentStatus });
  const at = "2026-11-30T10:00:00.000Z";
  const task: Task = {
    id,
    schema_version: 1,
    kind: "mission",
    prompt,
    status: "done",
    created_at: at,
    updated_at: at,
    camp_slot: camp.slot,
    camp_path: camp.path,
    camp_branch: camp.branch,
    camp_base: "main",
    output: "earlier output",
    backend: "herdr",
    herdr_workspace_id: f.ws.workspace_id,
    herdr_tab_id: tab.tab_id,
    herdr_pane_id: tab.pane_id,
    herdr_agent_name: name,
    harness: "claude",
    ...fields,
  };
  await createTask(f.paths, task);
  return { task, name, tab_id: tab.tab_id, pane_id: tab.pane_id };
}

/** The task id printed on dispatch's first line. */
export function taskIdOf(stdout: string): string {
  const m = /^task_id=([0-9a-f]{16}) /.exec(stdout);
  if (!m) throw new Error(`no task_id line in: ${stdout}`);
  return m[1];
}

/** CMD-DISPATCH-04's stdout for a mission in camp slot 1 still running past the probe. */
export function stillRunningLines(f: Field, t: Task, name: string): string {
  return [
    `task_id=${t.id} kind=mission camp_slot=1 camp_branch=vexillum/${t.id}`,
    "status=running",
    `herdr: workspace=${f.ws.workspace_id} tab=${t.herdr_tab_id} pane=${t.herdr_pane_id} agent=${name}`,
    "still running past the quick-settle probe - the sentinel will record its final status",
    "",
  ].join("\n");
}
