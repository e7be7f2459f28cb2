/**
 * One sentinel pass over every project (SEN-04): recover wake journals, load tasks, survey each backend
 * once (SEN-05, TMX-04), reopen (SEN-20), decide and apply. An error in one project ends only its pass.
 */
import { join } from "node:path";
import type { Sighting, SoldierBackend, Survey } from "../backends/types";
import { type BackendName, backendOf } from "../backends/names";
import type { AgentInfo } from "../backends/agents";
import { BACKENDS, type Backend, COMMANDER_LISTING, backendFor } from "../backends";
import type { Env } from "../state/paths";
import { type Clock, scaled } from "../time";
import { type Mirrors, newMirrors, noteMirror } from "../machines/mirror";
import { errorMessage } from "../errors";
import { leasedTasks } from "../camps/pool";
import type { Exec } from "../exec";
import { type ProjectPaths, projectPaths } from "../state/paths";
import { stateDirs } from "../state/project-record";
import type { Task } from "../state/schemas";
import { isTaskBusy, parseTaskFile, taskFileNames } from "../state/tasks";
import { readStateText } from "../state/files";
import { hasPendingWakes, recoverPendingWakes } from "../wakes/queue";
import { hasHooklessCommander } from "../commanders/check";
import { loadTaskIn } from "../wakes/currency";
import type { WrittenWake } from "../wakes/notify";
import { type ApplyCtx, applyMark, applySettle } from "./apply";
import { type Windows, decide, inSettleGrace } from "../lifecycle/decide";
import { type Log, errorText, foreign } from "./log";
import { observe, stabilize } from "../lifecycle/observe";
import { isReopenCandidate, reopenIfWorking } from "./reopen";
import { failAbandonedLaunch, isAbandonedLaunch } from "../backends/leftovers";
import { type History, type HistoryPass, historyPass, leaveUnread, look, remember } from "./history";

const KNOWN_STATUSES = new Set(["working", "blocked", "idle", "done", "unknown", ""]);

/** Log de-duplication, and which unchanged files the pass may leave unread; every fact a decision needs is on disk (STA-01). */
type PassMemory = { corrupt: Set<string>; statuses: Set<string>; errors: Map<string, string>; history: History };

export type PassCtx = {
  root: string;
  exec: Exec;
  clock: Clock;
  env: Env;
  log: Log;
  windows: Windows;
  memory: PassMemory;
  signal?: AbortSignal;
  /** Test overrides of the registry's backends. */
  backends?: Partial<Record<BackendName, SoldierBackend>>;
  closeLeft?: Partial<Record<BackendName, Backend["closeLeft"]>>;
  /** Test override of the real monotonic clock that says how long a task file stayed unchanged (sentinel/history.ts). */
  fileClock?: Pick<Clock, "monotonic">;
};

/** `tasks`: those the pass may act on; sentinel/history.ts leaves the rest unread, so a new use of a finished task widens its rule. */
type Project = { paths: ProjectPaths; tasks: Task[] };

export function newMemory(): PassMemory {
  return { corrupt: new Set(), statuses: new Set(), errors: new Map(), history: new Map() };
}

export { stateDirs };

/** A repeating project error is logged when it first appears or changes; `undefined` marks the step working again. */
export function reportTickError(ctx: Pick<PassCtx, "memory" | "log">, key: string, err: unknown | undefined): void {
  logOnce(ctx, key, err === undefined ? undefined : `sentinel: tick error: ${key.split(" ")[0]}: ${errorText(err)}`);
}

/** A backend that could not be asked (SEN-05, TMX-04): logged on change, and once when it answers again, so the log shows when an outage ended. */
function reportSurveyError(ctx: PassCtx, backend: BackendName, err: unknown | undefined): void {
  const key = `survey ${backend}`;
  if (err === undefined && ctx.memory.errors.has(key)) ctx.log(`sentinel: ${backend} available again`);
  logOnce(ctx, key, err === undefined ? undefined : `sentinel: ${backend} unavailable: ${errorText(err)}`);
}

function logOnce(ctx: Pick<PassCtx, "memory" | "log">, key: string, message: string | undefined): void {
  if (message === undefined) {
    ctx.memory.errors.delete(key);
    return;
  }
  if (ctx.memory.errors.get(key) === message) return;
  ctx.memory.errors.set(key, message);
  ctx.log(message);
}

type Load = { mirrors: Mirrors; linger: number; history: HistoryPass; leased: () => Set<string> | undefined };

/** Tasks of one project the pass has a use for; a corrupt or too-new file is logged once and skipped, never rewritten. */
function loadTasks(ctx: PassCtx, paths: ProjectPaths, load: Load): Task[] {
  const out: Task[] = [];
  for (const name of taskFileNames(paths)) {
    const path = join(paths.tasksDir, name);
    const seen = look(load.history, path);
    if (leaveUnread(load.history, path, seen, load.leased)) continue;
    try {
      const text = readStateText(path);
      const task = text === undefined ? undefined : parseTaskFile(path, text).value;
      // A soldier on another machine is its own sentinel's; this file is the relay's mirror (MCH-07).
      if (task && task.machine === undefined) {
        out.push(task);
        remember(load.history, path, seen, task);
      } else if (task) noteMirror(load.mirrors, paths.key, task, ctx.clock.now(), load.linger);
      ctx.memory.corrupt.delete(path);
    } catch (err) {
      if (!ctx.memory.corrupt.has(path)) ctx.log(`sentinel: skipping ${errorText(err)}`);
      ctx.memory.corrupt.add(path);
    }
  }
  return out;
}

/** Ids holding a camp lease; undefined when the pool cannot be read (no reopen this pass). */
function readLeased(paths: ProjectPaths): Set<string> | undefined {
  try {
    return leasedTasks(paths);
  } catch {
    return undefined;
  }
}

/** SEN-05: pending wakes for a hook-less commander need the agent list for the injector (CMDR-08, CMDR-09); commanders.json is read only then. */
function hooklessWaiting(paths: ProjectPaths): boolean {
  return hasPendingWakes(paths) && hasHooklessCommander(paths);
}

/** What a pass did, and what it saw for the steps after it: `mirrors`, what the relay needs of the mirrored tasks (MCH-08). */
export type PassResult = { wakes: number; agents?: AgentInfo[]; dirs: ProjectPaths[]; written: WrittenWake[]; mirrors: Mirrors };

export async function runPass(ctx: PassCtx): Promise<PassResult> {
  const projects: Project[] = [];
  const dirs = stateDirs(ctx.root);
  const mirrors = newMirrors();
  const linger = scaled("relayLinger", ctx.env);
  const history = historyPass(ctx.memory.history, ctx.fileClock);
  // Reopen candidates need a leased camp; the pool is read at most once per project, only when one is in question (SEN-20).
  // Read while loading, before abandoned launches are settled: a lease taken meanwhile waits for the next pass.
  const leased = new Map<string, Set<string> | undefined>();
  const leasedIn = (paths: ProjectPaths) => {
    if (!leased.has(paths.key)) leased.set(paths.key, readLeased(paths));
    return leased.get(paths.key);
  };
  for (const paths of dirs) {
    // The wake journal apart from the tasks: a broken wakes/ must not stop the project being watched.
    try {
      recoverPendingWakes(paths.wakesDir, (wake) => {
        const dir = wake.origin ? projectPaths(ctx.root, wake.origin).stateDir : paths.stateDir;
        return loadTaskIn(dir, wake.task_id)?.status;
      });
      reportTickError(ctx, `${paths.key} journal`, undefined);
    } catch (err) {
      reportTickError(ctx, `${paths.key} journal`, err);
    }
    try {
      projects.push({ paths, tasks: loadTasks(ctx, paths, { mirrors, linger, history, leased: () => leasedIn(paths) }) });
      reportTickError(ctx, `${paths.key} tasks`, undefined);
    } catch (err) {
      reportTickError(ctx, `${paths.key} tasks`, err);
    }
  }

  ctx.memory.history = history.next;

  for (const p of projects) await settleAbandoned(ctx, p);

  const reopenable = (p: Project, t: Task) => isReopenCandidate(t) && Boolean(leasedIn(p.paths)?.has(t.id));
  // Each backend is asked once, for the tasks this pass will judge (SEN-05, TMX-04).
  const wanted = new Map<BackendName, Task[]>();
  for (const p of projects) {
    for (const t of p.tasks) {
      if (t.status !== "running" && !reopenable(p, t)) continue;
      const name = backendOf(t);
      const list = wanted.get(name) ?? [];
      list.push(t);
      wanted.set(name, list);
    }
  }
  if (projects.some((p) => hooklessWaiting(p.paths))) for (const name of COMMANDER_LISTING) if (!wanted.has(name)) wanted.set(name, []);
  if (wanted.size === 0) return { wakes: 0, dirs, written: [], mirrors };

  const surveys = new Map<BackendName, Survey>();
  for (const [name, tasks] of wanted) {
    try {
      const survey = await (ctx.backends?.[name] ?? BACKENDS[name].survey.backend(ctx)).survey(tasks);
      surveys.set(name, survey);
      reportSurveyError(ctx, name, undefined);
      reportServerErrors(ctx, name, survey.servers);
    } catch (err) {
      reportSurveyError(ctx, name, err);
    }
  }
  if (surveys.size === 0) return { wakes: 0, dirs, written: [], mirrors };
  const agents = [...surveys.values()].find((s) => s.agents)?.agents;

  let wakes = 0;
  const written: WrittenWake[] = [];
  for (const p of projects) {
    if (ctx.signal?.aborted) break;
    try {
      wakes += await serveProject(ctx, p, surveys, reopenable, written);
      reportTickError(ctx, `${p.paths.key} serve`, undefined);
    } catch (err) {
      reportTickError(ctx, `${p.paths.key} serve`, err);
    }
  }
  if (wakes > 0) ctx.log(`sentinel: recorded ${wakes} wake(s)`);
  return { wakes, agents, dirs, written, mirrors };
}

/** A backend server that did not answer (a tmux socket), logged once per server and message. */
function reportServerErrors(ctx: PassCtx, backend: BackendName, servers: Map<string, unknown> | undefined): void {
  if (!servers) return;
  const prefix = `${backend} `;
  for (const key of ctx.memory.errors.keys()) {
    if (key.startsWith(prefix) && !servers.has(key.slice(prefix.length))) ctx.memory.errors.delete(key);
  }
  for (const [socket, err] of servers) {
    const why = err === undefined ? undefined : new Error(`server ${socket} did not answer (its tasks wait for the next pass): ${errorMessage(err)}`);
    reportTickError(ctx, prefix + socket, why);
  }
}

/** Launches whose command died (kill -9 of dispatch): failed, with any tab or tmux session they left closed. */
async function settleAbandoned(ctx: PassCtx, p: Project): Promise<void> {
  for (const task of p.tasks) {
    if (ctx.signal?.aborted || !isAbandonedLaunch(p.paths, task)) continue;
    try {
      const r = await failAbandonedLaunch({ paths: p.paths, deps: ctx, now: ctx.clock.now(), closeLeft: ctx.closeLeft?.[backendOf(task)] }, task);
      if (!r.failed) continue;
      const what = backendFor(task).leftover;
      const tabs = r.closed.length ? `; closed its ${what} ${r.closed.join(", ")}` : "";
      const unknown = r.error ? `; could not look for a ${what} it left: ${foreign(r.error)}` : "";
      ctx.log(`sentinel: ${task.kind} ${task.id} (${p.paths.key}): pending -> failed (its launch stopped${tabs}${unknown})`);
      task.status = "failed";
    } catch (err) {
      reportTickError(ctx, `${p.paths.key} abandoned ${task.id}`, err);
    }
  }
}

function applyCtxFor(ctx: PassCtx, p: Project, written?: WrittenWake[]): ApplyCtx {
  return { root: ctx.root, paths: p.paths, project: p.paths.project || undefined, now: ctx.clock.now(), log: ctx.log, written };
}

async function serveProject(ctx: PassCtx, p: Project, surveys: Map<BackendName, Survey>, reopenable: (p: Project, t: Task) => boolean, written: WrittenWake[]): Promise<number> {
  let wakes = 0;
  for (const task of p.tasks) {
    if (ctx.signal?.aborted) break;
    const survey = surveys.get(backendOf(task));
    const reopen = reopenable(p, task);
    // The lock is probed only for tasks this pass would judge, not for every finished one.
    if (!survey || (!reopen && task.status !== "running") || isTaskBusy(p.paths, task.id)) continue;
    // Its server did not answer: neither found nor gone this pass.
    if (survey.unreachable?.(task) !== undefined) continue;
    if (reopen) {
      await reopenIfWorking(applyCtxFor(ctx, p), task, sight(ctx, p, task, survey));
      continue;
    }
    if (await serveRunning(ctx, p, task, survey, written)) wakes++;
  }
  return wakes;
}

/** The task's soldier as the survey saw it; a problem with what it read is logged once, not every pass. */
function sight(ctx: PassCtx, p: Project, task: Task, survey: Survey): Sighting | undefined {
  const soldier = survey.find(task, p.paths);
  const key = `${p.paths.key} sighting ${task.id}`;
  if (!soldier?.problem) ctx.memory.corrupt.delete(key);
  else if (!ctx.memory.corrupt.has(key)) {
    ctx.memory.corrupt.add(key);
    ctx.log(`sentinel: ${task.kind} ${task.id} (${p.paths.key}): status unknown until its soldier reports again: ${soldier.problem}`);
  }
  return soldier;
}

/** Decides and applies for one running task; true when it settled with a wake. */
async function serveRunning(ctx: PassCtx, p: Project, task: Task, survey: Survey, written: WrittenWake[]): Promise<boolean> {
  const now = ctx.clock.now();
  if (inSettleGrace(task, now, ctx.windows)) return false;
  const soldier = sight(ctx, p, task, survey);
  let obs = await observe(task, soldier, { env: ctx.env, exec: ctx.exec, paths: p.paths, now });
  if (obs.kind === "present" && !KNOWN_STATUSES.has(obs.status)) {
    if (!ctx.memory.statuses.has(obs.status)) {
      ctx.log(`sentinel: unexpected ${backendOf(task)} status "${foreign(obs.status)}" for ${task.kind} ${task.id} (${p.paths.key}) - skipping it`);
      ctx.memory.statuses.add(obs.status);
    }
    return false;
  }
  let action = decide(task, obs, now, ctx.windows, p.paths.key);
  if (action.type === "stabilize" && obs.kind === "idle" && soldier) {
    const s = await stabilize(obs.transcript, () => soldier.read(), ctx, ctx.signal);
    // A signal cut the re-reads short: that says nothing about the pane, so settle next time.
    if (ctx.signal?.aborted) return false;
    obs = { ...obs, transcript: s.transcript, stability: s.stability };
    action = decide(task, obs, ctx.clock.now(), ctx.windows, p.paths.key);
  }
  // A command that began while the pane was being read owns the task now.
  if (action.type !== "none" && isTaskBusy(p.paths, task.id)) return false;
  const apply = applyCtxFor(ctx, p, written);
  if (action.type === "mark") {
    if ((await applyMark(apply, task, action.patch)) && action.log) ctx.log(action.log);
    return false;
  }
  if (action.type === "settle") return applySettle(apply, task, action);
  return false;
}
