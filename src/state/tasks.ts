/** Task files (TSK-01). A corrupt or too-new one is an error naming it, never skipped silently. */
import { lstatSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { StateError, UsageError, VxError } from "../errors";
import { isTaskId } from "./ids";
import { ensureStateDir, readStateText, refuseLinks, writeStateFile } from "./files";
import { isLockHeld, withLock } from "./lock";
import type { ProjectPaths } from "./paths";
import { type Loaded, mergeForSave, parseRecord, renderState } from "./record";
import { DECISION_KEYS, SCHEMA_VERSION, TASK_REQUIRED_KEYS, type Task, TaskSchema, keysOf } from "./schemas";

const TASK_KEYS = keysOf(TaskSchema);

function lexists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** SEN-08/13/18: every settlement out of running clears them. */
export const SETTLE_CLEARS = {
  agent_not_found_since: undefined,
  idle_unconfirmed_since: undefined,
  held_running_since: undefined,
} as const satisfies Partial<Task>;

/** A new running episode also forgets the pause it saw (SEN-17). */
export const EPISODE_CLEARS = { ...SETTLE_CLEARS, pause_seen_at: undefined } as const satisfies Partial<Task>;

export function taskPath(paths: ProjectPaths, id: string): string {
  return join(paths.tasksDir, `${id}.json`);
}

/** Its `id` must be its file name, or a save would land on another task's file. */
export function parseTaskFile(path: string, text: string): Loaded<Task> {
  const loaded = parseRecord(path, text, TaskSchema, true);
  const name = basename(path, ".json");
  if (loaded.value.id !== name) {
    throw new StateError(path, `its id is "${loaded.value.id}" but its file is named for ${name} - vx leaves it as it is; repair the id or move the file aside`);
  }
  return loaded;
}

/** Undefined when its file does not exist. */
export function loadTask(paths: ProjectPaths, id: string): Loaded<Task> | undefined {
  const path = taskPath(paths, id);
  const text = readStateText(path);
  return text === undefined ? undefined : parseTaskFile(path, text);
}

/** TSK-01, WAIT-05. */
export function noTask(id: string): VxError {
  return new VxError(`no task ${id} in this project - 'vx status' lists its tasks`);
}

/** TSK-02: a whole id, or a prefix of exactly one task's id. */
export function resolveTaskRef(paths: ProjectPaths, ref: string, command?: string): string {
  if (isTaskId(ref)) return ref;
  const ids = taskFileNames(paths)
    .map((n) => n.slice(0, -".json".length))
    .filter((id) => isTaskId(id) && id.startsWith(ref));
  if (ids.length === 1) return ids[0]!;
  if (ids.length === 0) throw noTask(ref);
  const shown = ids.slice(0, 5).join(", ") + (ids.length > 5 ? `, and ${ids.length - 5} more` : "");
  throw new UsageError(`task id prefix "${ref}" is ambiguous: it starts ${shown} - give more of the id`, command);
}

export function requireTask(paths: ProjectPaths, id: string): Task {
  const loaded = loadTask(paths, id);
  if (!loaded) throw noTask(id);
  return loaded.value;
}

/** A task a command acts on here: one mirrored from another machine is refused by name (MCH-09), nothing touched. */
export function requireLocalTask(paths: ProjectPaths, id: string, command: string): Task {
  const task = requireTask(paths, id);
  if (task.machine) {
    throw new VxError(`task ${id} runs on machine ${task.machine}, and vx ${command} does not reach other machines yet - run it there, in ${task.remote_project ?? "the project's clone"}`);
  }
  return task;
}

/** Sorted; temporaries skipped. A linked tasks directory is refused (a few lstats per listing, not per file). */
export function taskFileNames(paths: ProjectPaths): string[] {
  refuseLinks(paths.root, paths.tasksDir);
  let names: string[];
  try {
    names = readdirSync(paths.tasksDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return names.filter((n) => n.endsWith(".json") && !n.startsWith(".")).sort();
}

/** Throws on the first corrupt file (STA-07). */
export function listTasks(paths: ProjectPaths): Loaded<Task>[] {
  const out: Loaded<Task>[] = [];
  for (const name of taskFileNames(paths)) {
    const path = join(paths.tasksDir, name);
    const text = readStateText(path);
    if (text === undefined) continue; // removed between listing and reading
    out.push(parseTaskFile(path, text));
  }
  return out;
}

function isEmpty(x: unknown): boolean {
  return x === undefined || x === "" || x === 0 || (Array.isArray(x) && x.length === 0);
}

/** Optional keys omitted when empty or zero. */
export function compactTask(task: Task): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set(TASK_REQUIRED_KEYS);
  for (const k of TASK_KEYS) {
    const val = (task as Record<string, unknown>)[k];
    if (required.has(k) ? val === undefined : isEmpty(val)) continue;
    out[k] = k === "decision" ? mergeForSave(val as Record<string, unknown>, DECISION_KEYS, undefined) : val;
  }
  out.schema_version = SCHEMA_VERSION;
  return mergeForSave(out, TASK_KEYS, undefined);
}

/** Callers hold the tasks lock (or own a brand-new id). */
function writeTask(paths: ProjectPaths, task: Task, onDisk: Record<string, unknown> | undefined): void {
  writeStateFile(paths.root, taskPath(paths, task.id), renderState(mergeForSave(compactTask(task), TASK_KEYS, onDisk)));
}

export async function createTask(paths: ProjectPaths, task: Task): Promise<void> {
  ensureStateDir(paths.root, paths.tasksDir);
  await withLock(paths.tasksLock, () => {
    if (readStateText(taskPath(paths, task.id)) !== undefined) {
      throw new StateError(taskPath(paths, task.id), "already exists");
    }
    writeTask(paths, task, undefined);
  });
}

/** Locked read-modify-write; `fn` returns undefined to write nothing. */
export async function updateTask(paths: ProjectPaths, id: string, fn: (current: Task) => Task | undefined): Promise<Task | undefined> {
  ensureStateDir(paths.root, paths.tasksDir);
  return withLock(paths.tasksLock, () => {
    const loaded = loadTask(paths, id);
    if (!loaded) throw noTask(id);
    const next = fn(structuredClone(loaded.value));
    if (next === undefined) return undefined;
    writeTask(paths, next, loaded.raw);
    return next;
  });
}

const opsHere = new Set<string>();

function opLockPath(paths: ProjectPaths, id: string): string {
  return join(paths.tasksDir, `.${id}.op.lock`);
}

/**
 * Serializes one task's lifecycle commands across processes, so a strike never releases a camp a launch
 * is filling. The sentinel skips a held task rather than wait. Re-entrant within a process (land strikes).
 */
export async function withTaskOp<T>(paths: ProjectPaths, id: string, fn: () => Promise<T>): Promise<T> {
  const lockPath = opLockPath(paths, id);
  if (opsHere.has(lockPath)) return fn();
  ensureStateDir(paths.root, paths.tasksDir);
  opsHere.add(lockPath);
  try {
    return await withLock(lockPath, fn);
  } finally {
    opsHere.delete(lockPath);
  }
}

/** A half-started pane looks like a lost soldier, so the sentinel judges no busy task; a killed command's lock goes with it. */
export function isTaskBusy(paths: ProjectPaths, id: string): boolean {
  return isLockHeld(opLockPath(paths, id));
}

/** A dispatch killed between leasing and saving the task: no task will ever strike the lease. */
export function isLeaseAbandoned(paths: ProjectPaths, id: string): boolean {
  return !lexists(taskPath(paths, id)) && !isTaskBusy(paths, id);
}

/** TSK-07; an unreadable pane keeps the previous output. */
export function composeOutput(transcript: string | undefined, previous: string | undefined, notes: string[]): string {
  let out = (transcript ?? previous ?? "").replace(/\s+$/, "");
  for (const n of notes) out = out ? `${out}\n\n${n}` : n;
  return out;
}

export function sortTasks<T extends { value: Task }>(tasks: T[]): T[] {
  return [...tasks].sort((a, b) => {
    const byTime = Date.parse(b.value.updated_at) - Date.parse(a.value.updated_at);
    if (byTime !== 0) return byTime;
    return a.value.id < b.value.id ? -1 : a.value.id > b.value.id ? 1 : 0;
  });
}
