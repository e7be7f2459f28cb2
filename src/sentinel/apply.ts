/** Applying a decision: writes via the guarded save (SEN-19), wakes via the journal (WAK-05) to the commander's queue (WAK-02). */
import { existsSync } from "node:fs";
import type { ProjectPaths } from "../state/paths";
import { projectPaths } from "../state/paths";
import type { SoldierWake, Task } from "../state/schemas";
import { guardedUpdate } from "../state/guarded";
import { SETTLE_CLEARS } from "../state/tasks";
import { isoTime } from "../time";
import type { WrittenWake } from "../wakes/notify";
import { commitPendingWake, discardPendingWake, writePendingWake } from "../wakes/queue";
import type { Action, Patch } from "../lifecycle/decide";
import type { Log } from "./log";

export type ApplyCtx = {
  root: string;
  paths: ProjectPaths;
  /** The project path this state dir belongs to, when recorded. */
  project?: string;
  now: number;
  log: Log;
  /** Collects each committed wake for the notifier, run after the pass (WAK-14). */
  written?: WrittenWake[];
};

/** SEN-19: the saved task is still the running snapshot the decision was based on. */
function asDecided(snapshot: Task) {
  return { status: "running", updated_at: snapshot.updated_at } as const;
}

function patched(task: Task, patch: Patch): Task {
  const next = { ...task } as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) next[k] = v;
  return next as Task;
}

/** WAK-02: the commander's queue when it works in another project that still exists. */
function wakeTarget(ctx: Pick<ApplyCtx, "root" | "paths" | "project">, task: Task): { queueDir: string; origin?: string } {
  const cp = task.commander_project;
  if (cp && ctx.project && cp !== ctx.project && existsSync(cp)) {
    return { queueDir: projectPaths(ctx.root, cp).wakesDir, origin: ctx.project };
  }
  return { queueDir: ctx.paths.wakesDir };
}

/** Marks only (no status change); returns whether anything was written. */
export async function applyMark(ctx: ApplyCtx, snapshot: Task, patch: Patch): Promise<boolean> {
  return (await guardedUpdate(ctx.paths, snapshot.id, asDecided(snapshot), (cur) => patched(cur, patch))).written;
}

/** A transition out of running with its wake; returns whether it happened. */
export async function applySettle(ctx: ApplyCtx, snapshot: Task, action: Extract<Action, { type: "settle" }>): Promise<boolean> {
  const nowIso = isoTime(ctx.now);
  const target = wakeTarget(ctx, snapshot);
  const wake: SoldierWake = {
    task_id: snapshot.id,
    kind: snapshot.kind,
    old_status: "running",
    new_status: action.to,
    detected_at: nowIso,
    ...(action.reportPath ? { report_path: action.reportPath } : {}),
    ...(target.origin ? { origin: target.origin } : {}),
    ...(action.note ? { note: action.note } : {}),
  };
  writePendingWake(ctx.root, target.queueDir, wake);
  let written: boolean;
  try {
    ({ written } = await guardedUpdate(ctx.paths, snapshot.id, asDecided(snapshot), (cur) =>
      patched(cur, {
        status: action.to,
        updated_at: nowIso,
        output: action.output,
        ...(action.decision ? { decision: action.decision } : {}),
        ...SETTLE_CLEARS,
      }),
    ));
  } catch (err) {
    discardPendingWake(target.queueDir, snapshot.id);
    throw err;
  }
  if (!written) {
    discardPendingWake(target.queueDir, snapshot.id);
    return false;
  }
  commitPendingWake(target.queueDir, snapshot.id);
  const home = target.origin ? snapshot.commander_project : ctx.project;
  if (home) ctx.written?.push({ kind: "soldier", home, project: ctx.project ?? home, wake });
  ctx.log(`sentinel: ${snapshot.kind} ${snapshot.id} (${ctx.paths.key}): running -> ${action.to}`);
  return true;
}
