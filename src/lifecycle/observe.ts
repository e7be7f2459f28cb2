/** What the pass reads for one running task beyond its status: pane, completion (SEN-14), pause (SEN-17), re-reads (SEN-15). */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { backendFor } from "../backends";
import type { Sighting, Timing } from "../backends/types";
import { commitsAhead } from "../camps/git";
import type { Exec } from "../exec";
import { exists } from "../state/files";
import type { Env, ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { COUNTS, ageOf, scaled } from "../time";
import type { Observation, PauseState } from "./decide";

/** Pause and report files carry it; "" before it has one. */
export function soldierName(task: Task): string {
  return backendFor(task).soldierName(task) ?? "";
}

/** SCF/CMD-DISPATCH-05. */
export function reportPath(paths: ProjectPaths, task: Task, name = soldierName(task)): string {
  return join(paths.reportsDir, `${name}-${task.id}.md`);
}

/** By task id. */
export function scoutReports(paths: ProjectPaths, tasks: readonly Task[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tasks) {
    if (t.kind !== "scout") continue;
    const path = reportPath(paths, t);
    if (existsSync(path)) out[t.id] = path;
  }
  return out;
}

export function pausePath(paths: ProjectPaths, task: Task, name = soldierName(task)): string {
  return join(paths.pausesDir, `${name}.md`);
}

/** SEN-17; an mtime in the future is not trusted (TIME-02). */
function pauseState(paths: ProjectPaths, task: Task, now: number, env: Record<string, string | undefined>): PauseState {
  if (!soldierName(task)) return "none";
  try {
    const age = ageOf(now, statSync(pausePath(paths, task)).mtimeMs);
    return age <= scaled("pauseTrust", env) ? "active" : "stale";
  } catch {
    return "none";
  }
}

/** SEN-14. */
export async function completion(paths: ProjectPaths, task: Task, exec: Exec): Promise<{ signal: boolean; reportPath?: string }> {
  if (task.kind === "scout") {
    const report = reportPath(paths, task);
    return exists(report) ? { signal: true, reportPath: report } : { signal: false };
  }
  const ahead = await commitsAhead(task.camp_path, task.camp_base, exec);
  return { signal: (ahead ?? 0) > 0 };
}

type ObserveCtx = { env: Env; exec: Exec; paths: ProjectPaths; now: number };

/** `soldier` undefined: not found. */
export async function observe(task: Task, soldier: Sighting | undefined, ctx: ObserveCtx): Promise<Observation> {
  if (!soldier) return { kind: "missing" };
  const status = soldier.status;
  if (status === "blocked") return { kind: "blocked", transcript: await soldier.read(), visible: await soldier.readVisible() };
  if (status !== "idle" && status !== "done") return { kind: "present", status };
  const done = await completion(ctx.paths, task, ctx.exec);
  return {
    kind: "idle",
    transcript: await soldier.read(),
    completion: done.signal,
    reportPath: done.reportPath,
    pause: pauseState(ctx.paths, task, ctx.now, ctx.env),
  };
}

/** SEN-15: until two consecutive reads match; the first read counts toward the maximum. */
export async function stabilize(
  first: string | undefined,
  read: () => Promise<string | undefined>,
  timing: Timing,
  signal?: AbortSignal,
): Promise<{ transcript?: string; stability: "stable" | "unstable" | "unreadable" }> {
  let last = first;
  let everRead = first !== undefined;
  for (let reads = 1; reads < COUNTS.stabilizeReads; reads++) {
    await timing.clock.sleep(scaled("stabilizeGap", timing.env), signal);
    const next = await read();
    if (next !== undefined) everRead = true;
    if (next !== undefined && next === last) return { transcript: next, stability: "stable" };
    if (next !== undefined) last = next;
    if (signal?.aborted) break;
  }
  return { transcript: last, stability: everRead ? "unstable" : "unreadable" };
}
