// The camp pool (STA-09). Every read-modify-write of `pool.json`, and an acquire's git work, holds the kernel lock on
// `pool.lock`, so concurrent dispatches never lease one slot twice and a crash part-way leaves nothing leased.
import { readdirSync, rmdirSync } from "node:fs";
import { basename, join } from "node:path";
import { StateError, VxError, errorMessage } from "../errors";
import type { Exec } from "../exec";
import { printable } from "../printable";
import { ensureStateDir, exists, refuseLinks } from "../state/files";
import { withLock } from "../state/lock";
import { type ProjectPaths, isUnder, realpathOr } from "../state/paths";
import { leasedIds } from "../state/leases";
import { type Loaded, loadRecord, mergeForSave, saveRecord } from "../state/record";
import { type Pool, PoolSchema, SCHEMA_VERSION, type Slot, SlotSchema, keysOf } from "../state/schemas";
import { taskPath } from "../state/tasks";
import { addWorktree, checkoutFreshBranch, currentBranch, isClean, pruneWorktrees, worktreeKind } from "./git";

const POOL_KEYS = keysOf(PoolSchema);
const SLOT_KEYS = keysOf(SlotSchema);

/** An idle slot acquire passed over, and why. */
type SkippedSlot = { slot: number; reason: string };

/** A leased camp; `skipped` lists idle slots that were unusable (for a warning or doctor). */
export type Camp = { slot: number; path: string; branch: string; skipped: SkippedSlot[] };

/** `vexillum/<task-id>`. */
export function campBranch(taskId: string): string {
  return `vexillum/${taskId}`;
}

/** `<state dir>/camps/<slot>/<repo basename>`. */
export function campPath(paths: ProjectPaths, project: string, slot: number): string {
  return join(paths.campsDir, String(slot), basename(project));
}

function loadPool(paths: ProjectPaths): Loaded<Pool> | undefined {
  return loadRecord(paths.poolFile, PoolSchema, true);
}

/** The pool as on disk; a missing file is an empty pool, a corrupt one a StateError naming it. */
export function readPool(paths: ProjectPaths): Pool {
  return loadPool(paths)?.value ?? { schema_version: SCHEMA_VERSION, slots: [] };
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** Unknown fields survive, top-level through `saveRecord` and per slot matched by number, so a newer build's data is not erased. */
function savePool(paths: ProjectPaths, slots: Slot[], raw: Record<string, unknown> | undefined): void {
  const rawSlots = new Map<number, Record<string, unknown>>();
  if (raw && Array.isArray(raw.slots)) {
    for (const s of raw.slots) if (isPlainObject(s) && typeof s.number === "number") rawSlots.set(s.number, s);
  }
  const out = [...slots].sort((a, b) => a.number - b.number).map((s) => mergeForSave({ ...s }, SLOT_KEYS, rawSlots.get(s.number)));
  saveRecord(paths.root, paths.poolFile, { schema_version: SCHEMA_VERSION, slots: out }, POOL_KEYS);
}

/** Runs `fn` on the pool under its lock; `fn` returns whether it changed the slots. */
async function withPool<T>(paths: ProjectPaths, fn: (slots: Slot[]) => Promise<{ changed: boolean; result: T }> | { changed: boolean; result: T }): Promise<T> {
  ensureStateDir(paths.root, paths.campsDir);
  return withLock(paths.poolLock, async () => {
    const loaded = loadPool(paths);
    const slots = loaded?.value.slots ?? [];
    const { changed, result } = await fn(slots);
    if (changed) savePool(paths, slots, loaded?.raw);
    return result;
  });
}

/** Readies an idle slot for `branch`; undefined on success, else why it was skipped (a failure never blocks dispatch). */
async function reuse(paths: ProjectPaths, slot: Slot, base: string, branch: string, exec: Exec): Promise<string | undefined> {
  const path = campPath(paths, paths.project, slot.number);
  try {
    refuseLinks(paths.root, path); // a soldier working there would write wherever the link points
  } catch {
    return "its path has a symbolic link, which vx refuses inside its state dir";
  }
  const check = await checkCamp(paths, { slot: slot.number, path }, exec, [slot]);
  if (check.kind !== "camp") return check.reason;
  try {
    if (!(await isClean(path, exec))) return "has uncommitted changes";
    await checkoutFreshBranch(path, base, branch, exec);
  } catch (err) {
    return errorMessage(err);
  }
  return undefined;
}

/** `max + 1`, past any taken path: leftovers of a failed add or a lost pool file would make `git worktree add` fail forever. */
function nextSlotNumber(paths: ProjectPaths, project: string, slots: Slot[]): number {
  let n = slots.reduce((max, s) => Math.max(max, s.number), 0) + 1;
  while (exists(campPath(paths, project, n))) n++;
  return n;
}

async function addCamp(paths: ProjectPaths, project: string, slot: number, base: string, branch: string, exec: Exec): Promise<void> {
  const slotDir = join(paths.campsDir, String(slot));
  ensureStateDir(paths.root, slotDir);
  try {
    // A registered worktree whose directory vanished makes the add refuse its path or its branch: forgotten, then once more.
    // Pruning only then spares every other dispatch a git process.
    const path = campPath(paths, project, slot);
    await addWorktree(project, path, branch, base, exec).catch(async () => {
      await pruneWorktrees(project, exec).catch(() => undefined);
      await addWorktree(project, path, branch, base, exec);
    });
  } catch (err) {
    try {
      rmdirSync(slotDir); // only when git left it empty
    } catch {
      // not empty (a partial worktree: nextSlotNumber steps over it) or already gone
    }
    throw err;
  }
}

/** Unlisted slot dirs holding this project's worktree (a dispatch killed between add and save) become idle slots; under the lock no add is half-way. */
async function adoptStrays(paths: ProjectPaths, project: string, slots: Slot[], exec: Exec): Promise<void> {
  const known = new Set(slots.map((s) => s.number));
  let names: string[];
  try {
    names = readdirSync(paths.campsDir);
  } catch {
    return;
  }
  for (const name of names) {
    const number = Number(name);
    if (!/^[1-9][0-9]*$/.test(name) || known.has(number)) continue;
    const path = campPath(paths, project, number);
    if ((await worktreeKind(path, project, exec)) !== "linked") continue;
    const branch = (await currentBranch(path, exec).catch(() => undefined)) ?? "";
    slots.push({ number, branch });
  }
}

/** Clears leases no task will ever strike (a dispatch killed between leasing and saving its task). */
function clearAbandoned(slots: Slot[], abandoned: ((taskId: string) => boolean) | undefined): void {
  for (const slot of slots) if (slot.leased_by && abandoned?.(slot.leased_by)) slot.leased_by = undefined;
}

function skippedText(skipped: SkippedSlot[]): string {
  if (skipped.length === 0) return "";
  return ` (idle slots skipped: ${skipped.map((s) => `${s.slot}: ${s.reason}`).join("; ")})`;
}

/** The first idle slot that exists, is this project's and is clean (branch recreated at `base`), else a new slot; a task holding one is refused. */
export async function acquireCamp(paths: ProjectPaths, opts: { project: string; taskId: string; base: string; exec: Exec; abandoned?: (taskId: string) => boolean }): Promise<Camp> {
  const { project, taskId, base, exec } = opts;
  const branch = campBranch(taskId);
  // Callers that found the state dir by listing pass the project apart from the paths.
  const own = { ...paths, project };
  return withPool(paths, async (slots) => {
    // Saved with the lease below (every way out that leases writes the pool).
    await adoptStrays(paths, project, slots, exec);
    clearAbandoned(slots, opts.abandoned);
    const held = slots.find((s) => s.leased_by === taskId);
    if (held) throw new VxError(`task ${taskId} already holds camp slot ${held.number}`);
    const skipped: SkippedSlot[] = [];
    for (const slot of [...slots].sort((a, b) => a.number - b.number)) {
      if (slot.leased_by) continue;
      const path = campPath(paths, project, slot.number);
      const reason = await reuse(own, slot, base, branch, exec);
      if (reason !== undefined) {
        skipped.push({ slot: slot.number, reason });
        continue;
      }
      slot.branch = branch;
      slot.leased_by = taskId;
      return { changed: true, result: { slot: slot.number, path, branch, skipped } };
    }
    const number = nextSlotNumber(paths, project, slots);
    try {
      await addCamp(paths, project, number, base, branch, exec);
    } catch (err) {
      throw new VxError(`could not create camp slot ${number} for task ${taskId}: ${errorMessage(err)}${skippedText(skipped)}`);
    }
    slots.push({ number, branch, leased_by: taskId });
    return { changed: true, result: { slot: number, path: campPath(paths, project, number), branch, skipped } };
  });
}

/** Clears `taskId`'s lease (the worktree stays for reuse); whether one was cleared. */
export async function releaseLease(paths: ProjectPaths, taskId: string): Promise<boolean> {
  if (!exists(paths.poolFile)) return false;
  return withPool(paths, (slots) => {
    let cleared = false;
    for (const slot of slots) {
      if (slot.leased_by !== taskId) continue;
      slot.leased_by = undefined;
      cleared = true;
    }
    return { changed: cleared, result: cleared };
  });
}

/** Ids of every task holding a lease. Throws when the pool cannot be read. */
export function leasedTasks(paths: ProjectPaths): Set<string> {
  return leasedIds(paths) ?? new Set();
}

/** The slot leased by `taskId`; undefined when it holds none. Throws when the pool cannot be read. */
export function leaseOf(paths: ProjectPaths, taskId: string): Slot | undefined {
  return readPool(paths).slots.find((s) => s.leased_by === taskId);
}

/**
 * Checked before any git that can destroy work. `camp`: this pool's slot `slot` (path resolved, listed, not leased to another task,
 * a linked worktree of this project); `gone`: nothing for git there; `foreign`: anything else (the checkout, another worktree).
 */
type CampCheck = { kind: "camp" } | { kind: "gone" | "foreign"; reason: string };

export async function checkCamp(paths: ProjectPaths, camp: { slot: number; path: string; taskId?: string }, exec: Exec, slots: Slot[] = readPool(paths).slots): Promise<CampCheck> {
  const { slot, path, taskId } = camp;
  if (!exists(path)) return { kind: "gone", reason: "worktree is missing" };
  const foreign = (reason: string): CampCheck => ({ kind: "foreign", reason });
  const real = realpathOr(path);
  const expected = campPath(paths, paths.project, slot);
  if (!isUnder(real, paths.campsDir)) return foreign(`it is outside this project's camps directory ${paths.campsDir}`);
  if (real !== realpathOr(expected)) return foreign(`it is not camp slot ${slot}'s path ${expected}`);
  const listed = slots.find((s) => s.number === slot);
  if (!listed) return foreign(`camp slot ${slot} is not listed in ${paths.poolFile}`);
  if (listed.leased_by && listed.leased_by !== taskId) return foreign(`camp slot ${slot} is leased by task ${listed.leased_by}`);
  const kind = await worktreeKind(path, paths.project, exec);
  if (kind === "linked") return { kind: "camp" };
  if (kind === "main") return foreign("it is a main worktree, not a camp");
  return { kind: "gone", reason: "not a worktree of this project" };
}

/** The refusal for a task whose camp path failed `checkCamp`: names the task file and the path. */
function campRefused(paths: ProjectPaths, taskId: string, path: string, reason: string): StateError {
  return new StateError(
    taskPath(paths, taskId),
    `camp_path ${printable(path)} is not task ${taskId}'s camp (${printable(reason)}) - vx will not run destructive git there; fix camp_path and camp_slot in the task file, or remove the file`,
  );
}

/** Throws `campRefused` unless `path` is the task's camp; `gone` passes only with `allowGone` (no git follows). Whether it is a camp. */
export async function assertCampOfPool(paths: ProjectPaths, camp: { taskId: string; slot: number; path: string }, exec: Exec, opts: { allowGone?: boolean } = {}): Promise<boolean> {
  const check = await checkCamp(paths, camp, exec);
  if (check.kind === "camp") return true;
  if (check.kind === "gone" && opts.allowGone) return false;
  throw campRefused(paths, camp.taskId, camp.path, check.reason);
}
