/**
 * What a compat fleet of real soldiers needs on either terminal (tmux-fleet.ts, herdr-fleet.ts):
 * the mock model following one script per mission, told apart by a tag in the mission's prompt;
 * each mission's camp sampled with `git status` for as long as it exists; gates that end held
 * shell commands; the task files and wakes the sentinel writes.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type ProjectPaths, projectPaths } from "../../src/state/paths";
import type { Task } from "../../src/state/schemas";
import { listTasks, loadTask } from "../../src/state/tasks";
import { git, vx, waitFor } from "../helpers";
import type { HarnessName } from "./harnesses";
import type { LoggedRequest, Reply } from "./mock-models";
import type { World } from "./world";

/**
 * The sentinel's and dispatch's VX_TIME_SCALE unless a fleet sets its own: a 1.25 s poll, 2 s
 * settle grace, 2.5 s not-found window and a 3.75 s probe, while the harnesses keep their own real
 * timings. The 30 s readiness wait becomes 7.5 s, which Claude Code, Codex and Pi meet here.
 */
export const SCALE = "0.25";

/** The mission scripts' texts: a finished mission's last reply, a needs-decision question and its answer. */
export const FINAL = "Wrote the work file and committed it.";
export const QUESTION = "paint the work blue or green?";
export const ANSWER = "green, please";

/** Codex's title-generation turn quotes the user's prompt after this instruction. */
const TITLE_TURN = "Generate a concise, single-line task title";

export type Step = (r: LoggedRequest) => Reply;
export type Mission = { tag: string; prompt: string; script: Step; replies: { at: number; reply: Reply }[] };

/** A dispatched soldier: `session` is its tmux session or its herdr agent name. */
export type Dispatched = { id: string; session: string; camp: string; ms: number; stdout: string };

/** The backend-neutral half of a fleet. */
export type FleetCore = {
  harness: HarnessName;
  paths: ProjectPaths;
  mission(tag: string, prompt: string, script: Step): Mission;
  /** Runs `vx dispatch <prompt> --backend <backend> --harness <harness>`; throws unless it started. */
  dispatchOn(backend: string, m: Mission, soldierOf: (t: Task) => string, env?: Record<string, string>): Promise<Dispatched>;
  task(id: string): Task;
  /** Every `git status` entry seen in the task's camp, other than its mission's work file. */
  dirt(id: string): string[];
  /** Stops sampling the task's camp (before land or strike rework it). */
  stopSampling(id: string): void;
  wakePath(id: string): string;
  /** A file outside every camp whose creation ends a held shell command. */
  gate(name: string): string;
  open(name: string): void;
  /** Opens every mission's gate and stops sampling. */
  closeCore(): void;
};

/** The harness's shell tool running `command`, in its own argument names. */
export function shellCall(harness: HarnessName, command: string): NonNullable<Reply["tool"]> {
  switch (harness) {
    case "claude":
      return { name: "Bash", input: { command, description: "do the work" } };
    case "codex":
      return { name: "exec_command", input: { cmd: command } };
    case "pi":
      return { name: "bash", input: { command } };
    case "opencode":
      return { name: "bash", input: { command, description: "do the work" } };
    case "copilot":
      return { name: "bash", input: { command, description: "do the work" } };
    case "gemini":
      return { name: "run_shell_command", input: { command, description: "do the work" } };
  }
}

/** A request of the soldier's own conversation (it offers tools), not a title or summary turn. */
export function conversationOf(r: LoggedRequest): boolean {
  const tools = (r.body as { tools?: unknown[] } | undefined)?.tools;
  return Array.isArray(tools) && tools.length > 0 && !r.lastUser.includes(TITLE_TURN);
}

/**
 * The fleet half every backend shares, over a world whose `vx init` is done: what init wrote is
 * committed, as a user would (camps hold it and the checkout is clean to land), and the mock
 * model answers each mission's requests by its script.
 */
export function fleetCore(w: World, harness: HarnessName): FleetCore {
  git(w.project, "add", "-A");
  git(w.project, "commit", "-q", "-m", "vx init");
  const paths = projectPaths(w.root, w.project);
  const missions: Mission[] = [];
  const sampler = campSampler(paths);
  w.models.respond((r) => {
    if (!conversationOf(r)) return undefined;
    const body = JSON.stringify(r.body);
    // "(tag)" as the prompt ends: Gemini CLI's first request lists the camp's files, where an
    // earlier mission's landed work file (work-<tag>.txt) names another tag.
    const m = missions.find((x) => body.includes(`(${x.tag})`));
    if (!m) return undefined;
    const reply = m.script(r);
    m.replies.push({ at: Date.now(), reply });
    return reply;
  });
  const gates = join(dirname(w.home), "gates");
  mkdirSync(gates, { recursive: true });
  const core: FleetCore = {
    harness,
    paths,
    mission(tag, prompt, script) {
      const m = { tag, prompt: `${prompt} (${tag})`, script, replies: [] };
      missions.push(m);
      return m;
    },
    async dispatchOn(backend, m, soldierOf, env = w.env) {
      const t0 = Date.now();
      const r = await vx(["dispatch", m.prompt, "--backend", backend, "--harness", harness], { cwd: w.project, env });
      const ms = Date.now() - t0;
      const id = r.stdout.match(/^task_id=([0-9a-f]+)/m)?.[1];
      if (r.code !== 0 || !id) throw new Error(`vx dispatch failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
      const task = core.task(id);
      return { id, session: soldierOf(task), camp: task.camp_path ?? "", ms, stdout: r.stdout };
    },
    task(id) {
      const t = loadTask(paths, id)?.value;
      if (!t) throw new Error(`task ${id} not found`);
      return t;
    },
    dirt: (id) => sampler.dirt.get(id) ?? [],
    stopSampling: (id) => sampler.stopped.add(id),
    wakePath: (id) => join(paths.wakesDir, `${id}.json`),
    gate: (name) => join(gates, name),
    open: (name) => writeFileSync(join(gates, name), ""),
    closeCore() {
      sampler.stop();
      // Held shell commands end, wherever their harness left them.
      for (const m of missions) writeFileSync(join(gates, m.tag), "");
    },
  };
  return core;
}

/**
 * Samples every launched task's camp every 300 ms (without taking git's index lock, which would
 * fail the soldier's own `git add`) and keeps each entry other than a mission's own work file.
 */
function campSampler(paths: ProjectPaths) {
  const dirt = new Map<string, string[]>();
  const stopped = new Set<string>();
  const timer = setInterval(() => {
    let tasks: Task[];
    try {
      tasks = listTasks(paths).map((l) => l.value);
    } catch {
      return; // read again on the next tick
    }
    for (const t of tasks) {
      if (t.status === "pending" || stopped.has(t.id) || !t.camp_path || !existsSync(t.camp_path)) continue;
      const args = ["git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=all", "--ignored"];
      const res = Bun.spawnSync(args, { cwd: t.camp_path, stdout: "pipe", stderr: "pipe" });
      if (res.exitCode !== 0) continue;
      const seen = dirt.get(t.id) ?? [];
      for (const line of res.stdout.toString().split("\n")) {
        if (line.trim() !== "" && !/ work-[a-z]+\.txt$/.test(line) && !seen.includes(line)) seen.push(line);
      }
      dirt.set(t.id, seen);
    }
  }, 300);
  return { dirt, stopped, stop: () => clearInterval(timer) };
}

/** The direct children of `pid`, with their command lines (read with a fixed, terminal-free width). */
export function childrenOf(pid: number): { pid: number; args: string }[] {
  const out = Bun.spawnSync(["ps", "-ww", "-o", "pid=,args=", "--ppid", String(pid)], { stdout: "pipe" }).stdout.toString();
  return out
    .split("\n")
    .map((l) => /^\s*(\d+)\s+(.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), args: m[2]! }));
}

/**
 * Harnesses whose first process only launches the CLI, and the signal that ends the CLI itself
 * (docs/real-clients.md): Gemini CLI's first process ignores SIGTERM and SIGHUP; Copilot CLI's is a
 * Node loader that forwards no signal, so stopped alone it leaves the CLI running, holding its session.
 */
const LAUNCHED: Partial<Record<HarnessName, "SIGHUP" | "SIGTERM">> = { gemini: "SIGHUP", copilot: "SIGTERM" };

/** Stops a harness mid-turn as a crash would: the CLI itself, not a launcher in front of it. */
export function stopHarness(harness: HarnessName, pid: number): void {
  const signal = LAUNCHED[harness];
  const cli = signal && childrenOf(pid).find((c) => c.args.includes(harness));
  // No launcher child: `pid` is the CLI itself.
  if (cli) process.kill(cli.pid, signal);
  else process.kill(pid, "SIGTERM");
}

/** The file a mission's shell command writes and commits. */
export const workFile = (tag: string) => `work-${tag}.txt`;

/** Commits the mission's work file, then holds until the gate named by the tag is opened. */
export function commitAndHold(f: Pick<FleetCore, "gate">, tag: string): string {
  const file = workFile(tag);
  return `printf 'x\\n' > ${file} && git add ${file} && git commit -q -m work && while [ ! -e '${f.gate(tag)}' ]; do sleep 0.1; done`;
}

/**
 * Waits for the task to reach `status`; `screen` (the soldier's pane) and the task go into the
 * error when it never does.
 */
export async function settlesOn(f: Pick<FleetCore, "task">, screen: () => string, d: Dispatched, status: Task["status"], timeoutMs = 60_000): Promise<Task> {
  try {
    return await waitFor(
      () => {
        const t = f.task(d.id);
        return t.status === status ? t : undefined;
      },
      timeoutMs,
      `task ${d.id} ${status}`,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message} (it is ${f.task(d.id).status})\n--- screen ---\n${screen()}`);
  }
}

/** When the wake file for `id` appeared (polled every 20 ms). */
export async function wakeSeen(f: Pick<FleetCore, "wakePath">, id: string, timeoutMs = 30_000): Promise<number> {
  await waitFor(() => existsSync(f.wakePath(id)), timeoutMs, `the wake of ${id}`);
  return Date.now();
}

/**
 * Opens a held mission's gate and waits for its task to settle `done` with the final reply in its
 * output, and for its wake; returns the task, when the wake appeared and the mission's last reply.
 */
export async function finishMission(
  f: Pick<FleetCore, "wakePath" | "open">,
  m: Mission,
  d: Dispatched,
  settles: (d: Dispatched, status: Task["status"], timeoutMs: number) => Promise<Task>,
): Promise<{ done: Task; wakeAt: number; last: Mission["replies"][number] }> {
  const woke = wakeSeen(f, d.id, 90_000);
  f.open(m.tag);
  const done = await settles(d, "done", 90_000);
  const wakeAt = await woke;
  const last = m.replies.at(-1)!;
  if (last.reply.text !== FINAL || !done.output?.includes(FINAL)) {
    throw new Error(`mission ${m.tag} ended with ${JSON.stringify(last.reply)}, its task's output: ${JSON.stringify(done.output)}`);
  }
  return { done, wakeAt, last };
}
