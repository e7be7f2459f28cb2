/** Helpers for drain/await tests: an initialized project with a task and a wake, and process control. */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectKey } from "../src/state/paths";
import { type Sandbox, alive, sandbox, stopSentinels } from "./helpers";
import { initProject } from "./init-project";

export type Queue = Sandbox & { stateDir: string; wakes: string; root: string };

export async function queue(env: Record<string, string> = {}): Promise<Queue> {
  const s = sandbox();
  Object.assign(s.env, { HERDR_WORKSPACE_ID: "w1", VX_TIME_SCALE: "0.01" }, env);
  await initProject(s.project, s.env);
  const root = join(s.home, ".vexillum");
  const stateDir = join(root, "projects", projectKey(s.project));
  return Object.assign(s, { stateDir, wakes: join(stateDir, "wakes"), root });
}

/** A task in `status` and a wake announcing it; returns the wake path. */
export function taskWithWake(q: Queue, id: string, status = "done", wakeStatus = status): string {
  mkdirSync(join(q.stateDir, "tasks"), { recursive: true });
  mkdirSync(q.wakes, { recursive: true });
  const task = { id, schema_version: 1, kind: "mission", prompt: "p", status, created_at: "2026-11-30T10:00:00Z", updated_at: "2026-11-30T10:00:00Z" };
  writeFileSync(join(q.stateDir, "tasks", `${id}.json`), JSON.stringify(task));
  const wake = { task_id: id, kind: "mission", old_status: "running", new_status: wakeStatus, detected_at: "2026-11-30T10:00:01Z" };
  const path = join(q.wakes, `${id}.json`);
  // Atomically, as the sentinel does: a watching await must never see a half-written wake.
  writeFileSync(join(q.wakes, `.${id}.tmp`), JSON.stringify(wake));
  renameSync(join(q.wakes, `.${id}.tmp`), path);
  return path;
}

export function reasonFor(id: string, status = "done"): string {
  return `A vexillum soldier's status changed:\n- mission ${id}: running -> ${status}\nCheck on it (and report to the general, or land/strike as appropriate) before ending your turn.\n`;
}

/** Stops a sentinel an await or command auto-started (verified first). */
export async function stopSentinel(root: string): Promise<void> {
  await stopSentinels(join(root, ".."));
}

export { alive };
