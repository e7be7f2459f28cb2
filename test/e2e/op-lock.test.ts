// The per-task operation lock (`tasks/.<id>.op.lock`): a lifecycle command on a task whose lock
// another process holds waits for it, changing nothing, and finishes once it is released.
//
// "Waiting on the lock" is read from the kernel, not inferred from time passing: /proc/locks lists
// a process blocked in flock(2) as a `->` line naming its pid and the lock file's inode. A command
// that did not take the lock would instead run to its end while the holder still holds it.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { leaseOf } from "../../src/camps/pool";
import type { Task } from "../../src/state/schemas";
import { taskPath } from "../../src/state/tasks";
import { callsOf } from "../fakes/herdr-control";
import { VX_BIN, git, waitFor } from "../helpers";
import { type Field, field, seedTask } from "./soldier-field";

const HOLDER = join(import.meta.dir, "..", "fixtures", "hold-lock.ts");
const PROC_LOCKS = "/proc/locks";

/** Whether `pid` is blocked waiting for a flock on `lockPath` (a `->` line of /proc/locks). */
function blockedOn(pid: number, lockPath: string): boolean {
  const ino = String(statSync(lockPath).ino);
  return readFileSync(PROC_LOCKS, "utf8")
    .split("\n")
    .some((line) => {
      // `1: -> FLOCK  ADVISORY  WRITE <pid> <maj>:<min>:<inode> 0 EOF`
      const f = line.trim().split(/\s+/);
      return f[1] === "->" && f[2] === "FLOCK" && f[5] === String(pid) && f[6]?.split(":")[2] === ino;
    });
}

/** A separate process holding `path` exclusively until killed; resolves once it holds it. */
async function holdLock(path: string) {
  const proc = Bun.spawn(["bun", HOLDER, path], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  if (first.trim() !== "locked") throw new Error(`lock holder said ${JSON.stringify(first)}`);
  return {
    async release() {
      proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}

type Case = {
  name: string;
  /** Seeds the task; returns its id and the command line to run on it. */
  setup(f: Field): Promise<{ id: string; args: string[] }>;
  /** What the command did once it could run (strike and land leave a done task's file as it was). */
  after(f: Field, t: Task, stdout: string): void;
};

const CASES: Case[] = [
  {
    name: "strike",
    async setup(f) {
      const { task } = await seedTask(f, { status: "done" });
      return { id: task.id, args: ["strike", task.id] };
    },
    after(f, t, stdout) {
      expect(stdout).toBe("struck: camp returned to the pool, herdr pane closed.\n");
      expect(leaseOf(f.paths, t.id)).toBeUndefined();
    },
  },
  {
    name: "prompt",
    async setup(f) {
      const { task } = await seedTask(f, { status: "done" });
      return { id: task.id, args: ["prompt", task.id, "now", "add", "tests"] };
    },
    after(_f, t, stdout) {
      expect(stdout).toBe(`status=running\nprompted task ${t.id}, now running\n`);
      expect(t.status).toBe("running");
      expect(t.amendments?.map((a) => a.text)).toEqual(["now add tests"]);
    },
  },
  {
    name: "decide --dismiss",
    async setup(f) {
      const decision = { question: "Postgres or SQLite?", options: [], asked_at: "2026-11-30T10:00:00.000Z", kind: "prose" as const };
      const { task } = await seedTask(f, { status: "blocked", decision, agentStatus: "idle" });
      return { id: task.id, args: ["decide", task.id, "--dismiss"] };
    },
    after(_f, t, stdout) {
      expect(stdout).toContain(`dismissed the question on task ${t.id}, now ${t.status}`);
      expect(t.decision?.dismissed).toBe(true);
    },
  },
  {
    name: "land",
    async setup(f) {
      git(f.project, "add", "-A");
      git(f.project, "commit", "-q", "-m", "vexillum scaffold");
      const { task } = await seedTask(f, { status: "done" });
      const camp = task.camp_path as string;
      await Bun.write(join(camp, "FEATURE.md"), "feature\n");
      git(camp, "add", "FEATURE.md");
      git(camp, "commit", "-q", "-m", "feature");
      return { id: task.id, args: ["land", task.id] };
    },
    after(f, t, stdout) {
      expect(stdout).toStartWith(`landed: fast-forwarded ${f.project} to vexillum/${t.id}\n`);
      expect(existsSync(join(f.project, "FEATURE.md"))).toBe(true);
      expect(leaseOf(f.paths, t.id)).toBeUndefined();
    },
  },
];

describe.skipIf(!existsSync(PROC_LOCKS))("the per-task operation lock", () => {
  test.each(CASES.map((c) => [c.name, c] as const))("vx %s waits while another process holds it", async (_name, c) => {
    await using f = await field();
    const { id, args } = await c.setup(f);
    const file = taskPath(f.paths, id);
    const before = readFileSync(file, "utf8");
    const lockPath = join(f.paths.tasksDir, `.${id}.op.lock`);
    const holder = await holdLock(lockPath);
    const cmd = Bun.spawn([VX_BIN, ...args], { cwd: f.project, env: f.env, stdout: "pipe", stderr: "pipe" });
    const out = Promise.all([new Response(cmd.stdout).text(), new Response(cmd.stderr).text()]);
    try {
      await waitFor(() => cmd.exitCode !== null || blockedOn(cmd.pid, lockPath), 20_000, `vx ${c.name} to block on ${lockPath}`);
      if (cmd.exitCode !== null) {
        const [stdout, stderr] = await out;
        throw new Error(`vx ${c.name} ran to its end (exit ${cmd.exitCode}) while the task's operation lock was held elsewhere:\n${stdout}${stderr}`);
      }
      // Blocked at the lock: nothing of the task was touched yet.
      expect(readFileSync(file, "utf8")).toBe(before);
      expect(callsOf(f.fh)).toEqual([]);
      await holder.release();
      const code = await cmd.exited;
      const [stdout, stderr] = await out;
      expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
      c.after(f, f.task(id), stdout);
    } finally {
      await holder.release();
      if (cmd.exitCode === null) cmd.kill("SIGKILL");
      await cmd.exited;
    }
  });
});
