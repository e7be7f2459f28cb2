/**
 * Real soldiers dispatched with `vx dispatch --backend tmux` in a compat world. vx calls plain
 * `tmux`, so the world's TMUX_TMPDIR gives it (and the sentinel it auto-starts) a default server
 * of the world's own, which the test reads through the same socket. The mock model follows one
 * script per mission, told apart by a tag in the mission's prompt; each mission's camp is sampled
 * with `git status` for as long as it exists.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { projectPaths } from "../../src/state/paths";
import type { Task } from "../../src/state/schemas";
import { listTasks, loadTask } from "../../src/state/tasks";
import { git, vx, waitFor } from "../helpers";
import type { HarnessName } from "./harnesses";
import type { LoggedRequest, Reply } from "./mock-models";
import { type World, type WorldOptions, world } from "./world";

/**
 * The sentinel's and dispatch's VX_TIME_SCALE unless a fleet sets its own: a 1.25 s poll, 2 s
 * settle grace, 2.5 s not-found window and a 3.75 s probe, while the harnesses keep their own real
 * timings. The 30 s readiness wait becomes 7.5 s, which Claude Code, Codex and Pi meet here.
 */
export const SCALE = "0.25";

/** Codex's title-generation turn quotes the user's prompt after this instruction. */
const TITLE_TURN = "Generate a concise, single-line task title";

export type Step = (r: LoggedRequest) => Reply;
export type Mission = { tag: string; prompt: string; script: Step; replies: { at: number; reply: Reply }[] };

export type Dispatched = { id: string; session: string; camp: string; ms: number; stdout: string };

export type Fleet = World & {
  harness: HarnessName;
  /** tmux on the default server vx uses. */
  tmuxd(...args: string[]): { code: number; out: string; err: string };
  screen(session: string, lines?: number): string;
  hasSession(session: string): boolean;
  mission(tag: string, prompt: string, script: Step): Mission;
  dispatch(m: Mission): Promise<Dispatched>;
  task(id: string): Task;
  /** Every `git status` entry seen in the task's camp, other than its mission's work file. */
  dirt(id: string): string[];
  /** Stops sampling the task's camp (before land or strike rework it). */
  stopSampling(id: string): void;
  wakePath(id: string): string;
  /** A file outside every camp whose creation ends a held shell command. */
  gate(name: string): string;
  open(name: string): void;
  /** Kills the harness process of `session` (verified by pane pid and command line). */
  killHarness(session: string): void;
  closeFleet(): Promise<void>;
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

export async function fleet(harness: HarnessName, opts: Pick<WorldOptions, "env" | "prepare"> = {}): Promise<Fleet> {
  let tmuxDir = "";
  const w = await world({
    harness,
    // A Claude Code commander has a Stop-hook await to deliver wakes, none runs here: they stay queued.
    commander: "claude",
    env: { VX_TIME_SCALE: SCALE, ...opts.env },
    prepare: (x) => {
      tmuxDir = join(dirname(x.home), "tmux");
      mkdirSync(tmuxDir, { recursive: true });
      return { ...(opts.prepare?.(x) ?? {}), TMUX_TMPDIR: tmuxDir };
    },
  });
  // Dispatched from a plain terminal: no herdr pane around the commander.
  delete w.env.HERDR_WORKSPACE_ID;
  delete w.env.HERDR_PANE_ID;
  // What init wrote is committed, as a user would: camps hold it and the checkout is clean to land.
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
  const tmuxd = (...args: string[]) => {
    const res = Bun.spawnSync(["tmux", ...args], { env: w.env, stdout: "pipe", stderr: "pipe" });
    return { code: res.exitCode, out: res.stdout.toString(), err: res.stderr.toString() };
  };
  const gates = join(dirname(w.home), "gates");
  mkdirSync(gates, { recursive: true });
  const f: Fleet = Object.assign(w, {
    harness,
    tmuxd,
    screen: (session: string, lines = 200) => tmuxd("capture-pane", "-p", "-J", "-t", `=${session}:`, "-S", String(-lines)).out,
    hasSession: (session: string) => tmuxd("has-session", "-t", `=${session}`).code === 0,
    mission(tag: string, prompt: string, script: Step): Mission {
      const m = { tag, prompt: `${prompt} (${tag})`, script, replies: [] };
      missions.push(m);
      return m;
    },
    async dispatch(m: Mission): Promise<Dispatched> {
      const t0 = Date.now();
      const r = await vx(["dispatch", m.prompt, "--backend", "tmux", "--harness", harness], { cwd: w.project, env: w.env });
      const ms = Date.now() - t0;
      const id = r.stdout.match(/^task_id=([0-9a-f]+)/m)?.[1];
      if (r.code !== 0 || !id) throw new Error(`vx dispatch failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
      const task = f.task(id);
      return { id, session: task.tmux_target ?? "", camp: task.camp_path ?? "", ms, stdout: r.stdout };
    },
    task(id: string): Task {
      const t = loadTask(paths, id)?.value;
      if (!t) throw new Error(`task ${id} not found`);
      return t;
    },
    dirt: (id: string) => sampler.dirt.get(id) ?? [],
    stopSampling: (id: string) => sampler.stopped.add(id),
    wakePath: (id: string) => join(paths.wakesDir, `${id}.json`),
    gate: (name: string) => join(gates, name),
    open: (name: string) => writeFileSync(join(gates, name), ""),
    killHarness(session: string) {
      const pid = Number(tmuxd("display-message", "-p", "-t", `=${session}:`, "#{pane_pid}").out.trim());
      const ps = Bun.spawnSync(["ps", "-o", "args=", "-p", String(pid)], { stdout: "pipe" }).stdout.toString();
      if (!(pid > 0) || !ps.includes(harness)) throw new Error(`session ${session}'s pane process ${pid} is not ${harness}: ${ps.trim()}`);
      // Gemini CLI's first process ignores SIGTERM and SIGHUP; its child (the CLI itself) ends both.
      const child = harness === "gemini" ? childrenOf(pid).find((c) => c.args.includes(harness)) : undefined;
      process.kill(child?.pid ?? pid, child ? "SIGHUP" : "SIGTERM");
    },
    async closeFleet() {
      sampler.stop();
      // Held shell commands end, wherever their harness left them.
      for (const m of missions) writeFileSync(join(gates, m.tag), "");
      // A Gemini CLI outlives its pane (docs/real-clients.md): its processes are ended here.
      const panes = tmuxd("list-panes", "-a", "-F", "#{pane_pid}").out.split("\n").map(Number).filter((n) => n > 0);
      const leftovers = harness === "gemini" ? panes.flatMap((p) => [p, ...childrenOf(p).map((c) => c.pid)]) : [];
      tmuxd("kill-server");
      for (const pid of leftovers) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Gone already.
        }
      }
      await w.close();
    },
  });
  return f;
}

/**
 * Samples every launched task's camp every 300 ms (without taking git's index lock, which would
 * fail the soldier's own `git add`) and keeps each entry other than a mission's own work file.
 */
function campSampler(paths: ReturnType<typeof projectPaths>) {
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
function childrenOf(pid: number): { pid: number; args: string }[] {
  const out = Bun.spawnSync(["ps", "-ww", "-o", "pid=,args=", "--ppid", String(pid)], { stdout: "pipe" }).stdout.toString();
  return out.split("\n").map((l) => /^\s*(\d+)\s+(.*)$/.exec(l)).filter((m) => m !== null).map((m) => ({ pid: Number(m[1]), args: m[2]! }));
}

/** The file a mission's shell command writes and commits. */
export const workFile = (tag: string) => `work-${tag}.txt`;

/** Commits the mission's work file, then holds until the gate named by the tag is opened. */
export function commitAndHold(f: Fleet, tag: string): string {
  const file = workFile(tag);
  return `printf 'x\\n' > ${file} && git add ${file} && git commit -q -m work && while [ ! -e '${f.gate(tag)}' ]; do sleep 0.1; done`;
}

/** Waits for the task to reach `status`; the screen and the task go into the error when it never does. */
export async function settles(f: Fleet, d: Dispatched, status: Task["status"], timeoutMs = 60_000): Promise<Task> {
  try {
    return await waitFor(() => {
      const t = f.task(d.id);
      return t.status === status ? t : undefined;
    }, timeoutMs, `task ${d.id} ${status}`);
  } catch (err) {
    throw new Error(`${(err as Error).message} (it is ${f.task(d.id).status})\n--- screen ---\n${f.screen(d.session, 60)}`);
  }
}

/** When the wake file for `id` appeared (polled every 20 ms). */
export async function wakeSeen(f: Fleet, id: string, timeoutMs = 30_000): Promise<number> {
  await waitFor(() => existsSync(f.wakePath(id)), timeoutMs, `the wake of ${id}`);
  return Date.now();
}
