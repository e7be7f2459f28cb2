/**
 * MCH-08 on the commander's machine: what a relay line changes here. A task line refreshes the task's mirror; a wake
 * line is committed through the wake journal (WAK-05: pending, the mirror saved with the wake's `detected_at`, then
 * the rename), so a wake sent again after a lost ack is recognised and never written twice.
 */
import { join } from "node:path";
import * as v from "valibot";
import { isSafeBaseName } from "../state/ids";
import { type ProjectPaths, stateDirPaths } from "../state/paths";
import { readProjectPath } from "../state/project-record";
import { type SoldierWake, SoldierWakeSchema, type Task, TaskSchema } from "../state/schemas";
import { composeOutput, createTask, listTasks, loadTask, updateTask } from "../state/tasks";
import { stateDirs } from "../state/project-record";
import { commitPendingWake, discardPendingWake, writePendingWake } from "../wakes/queue";
import { ageOf } from "../time";
import type { Ack } from "./relay-serve";

/** What the machine's task tells the mirror; the rest (its camp path, its pane) means nothing here. */
const MIRRORED = ["status", "updated_at", "output", "decision", "amendments", "camp_branch", "camp_base", "redispatches", "resumes"] as const;

const IN_FLIGHT: readonly Task["status"][] = ["pending", "running", "blocked", "unconfirmed"];

/** Whether a mirrored task still needs its machine's relay: in flight, or settled so lately that its wake may still be on the way. */
export function needsRelay(task: Task, now: number, linger: number): boolean {
  return IN_FLIGHT.includes(task.status) || ageOf(now, Date.parse(task.updated_at)) < linger;
}

/** What the sentinel's pass saw of the mirrors, for the relay: the machines that need it, and each one's tasks in flight by project key. */
export type Mirrors = { wanted: Set<string>; inFlight: Map<string, Map<string, string[]>> };

export function newMirrors(): Mirrors {
  return { wanted: new Set(), inFlight: new Map() };
}

/** One mirrored task the pass read (it reads every task file anyway: the relay reads none again). */
export function noteMirror(m: Mirrors, key: string, task: Task, now: number, linger: number): void {
  const machine = task.machine;
  if (!machine) return;
  if (needsRelay(task, now, linger)) m.wanted.add(machine);
  if (!IN_FLIGHT.includes(task.status)) return;
  const byKey = m.inFlight.get(machine) ?? new Map<string, string[]>();
  byKey.set(key, [...(byKey.get(key) ?? []), task.id]);
  m.inFlight.set(machine, byKey);
}

/** This state root's dir for a project key a machine sent; undefined for a key that names none. */
export function localProject(root: string, key: string): ProjectPaths | undefined {
  // STA-03's shape, `<basename>-<hash8>`, and nothing a log line or a path could be bent by.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (!isSafeBaseName(key) || key.startsWith(".") || !/^[^\x00-\x1f\x7f]+-[0-9a-f]{8}$/.test(key)) return undefined;
  const dir = join(root, "projects", key);
  const project = readProjectPath(dir);
  return project ? stateDirPaths(dir, project) : undefined;
}

/** The mirror of task `id` of `machine`, or undefined when this root has none (never another machine's or a local task). */
function mirrorOf(paths: ProjectPaths, id: string, machine: string): Task | undefined {
  const loaded = loadTask(paths, id);
  return loaded?.value.machine === machine ? loaded.value : undefined;
}

function refreshed(current: Task, remote: Task): Task | undefined {
  const next: Record<string, unknown> = { ...current };
  let changed = false;
  for (const k of MIRRORED) {
    if (JSON.stringify(remote[k]) === JSON.stringify(current[k])) continue;
    next[k] = remote[k];
    changed = true;
  }
  return changed ? (next as Task) : undefined;
}

/**
 * A task line: its mirror refreshed; made when this root has no task of that id at all (the `vx dispatch --on` that
 * started it died before writing it: the task is this root's, it is in this root's tree there), never over a local task.
 */
export async function applyTaskLine(root: string, machine: string, key: string, raw: unknown, remoteProject?: unknown): Promise<void> {
  const paths = localProject(root, key);
  const parsed = v.safeParse(TaskSchema, raw);
  if (!paths || !parsed.success) return;
  const remote = parsed.output;
  if (loadTask(paths, remote.id) === undefined && typeof remoteProject === "string") {
    await createTask(paths, orphanMirror(remote, machine, remoteProject)).catch(() => undefined);
    return;
  }
  await refreshMirror(paths, machine, remote);
}

function orphanMirror(remote: Task, machine: string, remoteProject: string): Task {
  const { id, schema_version, kind, prompt, created_at, harness, model, effort } = remote;
  const mirrored = Object.fromEntries(MIRRORED.map((k) => [k, remote[k]]));
  return { id, schema_version, kind, prompt, created_at, harness, model, effort, ...mirrored, machine, remote_project: remoteProject } as Task;
}

/** The mirror of `remote` takes its mirrored fields; nothing when this root mirrors no such task from that machine. */
export async function refreshMirror(paths: ProjectPaths, machine: string, remote: Task): Promise<void> {
  if (!mirrorOf(paths, remote.id, machine)) return;
  await updateTask(paths, remote.id, (current) => (current.machine === machine ? refreshed(current, remote) : undefined));
}

/** A committed line: the ack that lets the machine delete it, and the wake when this commit wrote it (not when a copy was sent again). */
export type Committed = { ack: Ack; fresh?: { project: string; wake: SoldierWake } };

/** Commits the wake here (or finds it committed already); undefined keeps it there. */
export async function commitWakeLine(root: string, machine: string, key: string, raw: unknown): Promise<Committed | undefined> {
  const paths = localProject(root, key);
  const parsed = v.safeParse(SoldierWakeSchema, raw);
  if (!paths || !parsed.success) return undefined;
  const wake = parsed.output;
  const mirror = mirrorOf(paths, wake.task_id, machine);
  if (!mirror) return undefined;
  const ack = { ack: key, task_id: wake.task_id, detected_at: wake.detected_at };
  if (mirror.relayed_wake_at !== undefined && wake.detected_at <= mirror.relayed_wake_at) return { ack };
  // Delivery routes and retries by this machine's rules: the machine's routing fields do not come along.
  writePendingWake(root, paths.wakesDir, { ...wake, origin: undefined, delivery_failing_since: undefined });
  try {
    await updateTask(paths, wake.task_id, (current) => ({ ...current, relayed_wake_at: wake.detected_at }));
  } catch (err) {
    discardPendingWake(paths.wakesDir, wake.task_id);
    throw err;
  }
  commitPendingWake(paths.wakesDir, wake.task_id);
  return { ack, fresh: { project: paths.project, wake } };
}

/** MCH-08: what a machine that no longer has a task in flight says, through its relay. */
export function noteLost(machine: string): string {
  return `[vexillum] machine ${machine} no longer has this task (its state there was lost: ~/.vexillum wiped or replaced) - marked interrupted. Any work the soldier pushed nowhere is gone with it.`;
}

/** The mirrors of `machine` in flight, by project key: what its relay asks the machine about. */
export function inFlightOf(root: string, machine: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const dir of stateDirs(root)) {
    const ids = listTasks(dir)
      .map((t) => t.value)
      .filter((t) => t.machine === machine && IN_FLIGHT.includes(t.status))
      .map((t) => t.id);
    if (ids.length > 0) out.set(dir.key, ids);
  }
  return out;
}

/**
 * The machine has no file of these tasks: each mirror still in flight is interrupted here, with its note and a wake
 * by the journal (WAK-05), once. Returns the wakes written.
 */
export async function applyMissing(root: string, machine: string, key: string, ids: readonly string[], now: string): Promise<SoldierWake[]> {
  const paths = localProject(root, key);
  if (!paths) return [];
  const out: SoldierWake[] = [];
  for (const id of ids) {
    const t = mirrorOf(paths, id, machine);
    if (!t || !IN_FLIGHT.includes(t.status)) continue;
    const note = noteLost(machine);
    const wake: SoldierWake = { task_id: t.id, kind: t.kind, old_status: t.status, new_status: "interrupted", detected_at: now, note };
    writePendingWake(root, paths.wakesDir, wake);
    const saved = await updateTask(paths, t.id, (cur) =>
      cur.machine === machine && cur.status === t.status ? { ...cur, status: "interrupted", updated_at: now, output: composeOutput(undefined, cur.output, [note]) } : undefined,
    );
    if (!saved) {
      discardPendingWake(paths.wakesDir, t.id);
      continue;
    }
    commitPendingWake(paths.wakesDir, t.id);
    out.push(wake);
  }
  return out;
}

/** The mirror `vx dispatch --on` writes; when the relay adopted the task first, the dispatch's own fields go onto that one. */
export async function saveDispatchedMirror(paths: ProjectPaths, task: Task): Promise<void> {
  try {
    await createTask(paths, task);
  } catch (err) {
    if (mirrorOf(paths, task.id, task.machine ?? "") === undefined) throw err;
    const { status: _s, updated_at: _u, ...own } = task;
    await updateTask(paths, task.id, (current) => ({ ...current, ...own, ...Object.fromEntries(MIRRORED.map((k) => [k, current[k]])) }) as Task);
  }
}
