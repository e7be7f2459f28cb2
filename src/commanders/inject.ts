/**
 * The sentinel's delivery to commanders that have no async hook (CMDR-08, CMDR-09). After each
 * pass, for every project with a live registered hook-less commander that no live await serves,
 * the project's wakes are claimed and filtered exactly as a drain would and sent once: to Codex
 * with `codex queue` (run by its TUI after the running turn), and to the others (OpenCode without
 * its plugin, Gemini CLI, Copilot CLI) by typing them into their pane through its backend.
 * After 30 s of Codex failures the pane is typed into as well. Typing happens only while the
 * commander's screen shows it idle with an empty input line (and its backend agrees); each backend
 * finds it live its own way (`Backend.findCommander`). An undeliverable wake goes back to the queue stamped with
 * `delivery_failing_since`; it is retried every pass and never discarded.
 */
import { existsSync } from "node:fs";
import type { CommanderSeat } from "../backends";
import type { AgentInfo } from "../backends/agents";
import { liveAwaiters } from "../awaiters/registry";
import type { Exec } from "../exec";
import { HARNESSES, type HarnessName } from "../harnesses";
import { type Log, errorText, foreign } from "../sentinel/log";
import { readStateText } from "../state/files";
import { stateDirs } from "../state/project-record";
import { type Env, type ProjectPaths, rootPaths } from "../state/paths";
import { parseRecord, saveRecord } from "../state/record";
import { type Commander, type Commanders, type SoldierWake, SoldierWakeSchema, keysOf } from "../state/schemas";
import { type Clock, GUARDS, ageOf, isoTime, parseTime, scaled } from "../time";
import { type Claim, type QueueDirs, collectWakes, deliverDeps, finishClaims, putBackAll } from "../wakes/deliver";
import { hasPendingWakes } from "../wakes/queue";
import { reasonText } from "../wakes/reason";
import { HOOKLESS, findSeat, readCommanders } from "./check";

const SOLDIER_KEYS = keysOf(SoldierWakeSchema);

/** What delivery needs from the sentinel's pass (its PassCtx is one); `memory` lives as long as the sentinel. */
type InjectCtx = { root: string; exec: Exec; clock: Clock; env: Env; log: Log; memory: object; signal?: AbortSignal };

/** One project whose wakes go to a live hook-less commander, found by its backend. */
type Target = { paths: ProjectPaths; project: string; harness: HarnessName; entry: Commander; seat: CommanderSeat };

// Log de-duplication only (last error logged per project); every fact lives in the wake files.
const lastFailure = new WeakMap<object, Map<string, string>>();

function failures(ctx: InjectCtx): Map<string, string> {
  let m = lastFailure.get(ctx.memory);
  if (!m) lastFailure.set(ctx.memory, (m = new Map()));
  return m;
}

function logOnce(ctx: InjectCtx, key: string, message: string): void {
  const m = failures(ctx);
  if (m.get(key) === message) return;
  m.set(key, message);
  ctx.log(message);
}

/**
 * Run by the sentinel after the pass and dead-claim recovery. `agents` is the pass's one
 * agent list (the backends whose survey lists commanders); without it a commander only such a
 * backend could show live is not found, so nothing of its is claimed.
 */
export async function injectWakes(ctx: InjectCtx, agents: AgentInfo[] | undefined, dirs: ProjectPaths[] = stateDirs(ctx.root)): Promise<void> {
  const targets = await findTargets(ctx, agents ?? [], dirs);
  if (targets.length === 0) return;
  const served = await awaitedProjects(ctx);
  for (const t of targets) {
    if (ctx.signal?.aborted) return;
    if (served.has(t.paths.key) || served.has(t.project)) continue;
    try {
      await injectProject(ctx, t);
    } catch (err) {
      ctx.log(`sentinel: tick error: ${t.paths.key}: ${errorText(err)}`);
    }
  }
}

async function findTargets(ctx: InjectCtx, agents: readonly AgentInfo[], dirs: ProjectPaths[]): Promise<Target[]> {
  const out: Target[] = [];
  for (const paths of dirs) {
    if (!hasPendingWakes(paths)) continue;
    let registry: Commanders | undefined;
    try {
      registry = readCommanders(paths);
      failures(ctx).delete(`${paths.key}:commanders`);
    } catch (err) {
      logOnce(ctx, `${paths.key}:commanders`, `sentinel: skipping ${errorText(err)}`);
      continue;
    }
    for (const harness of HOOKLESS) {
      const entry = registry?.commanders[harness];
      if (!entry) continue;
      const seat = await findSeat({ exec: ctx.exec, clock: ctx.clock, env: ctx.env, agents }, harness, entry);
      if (!seat) continue;
      out.push({ paths, project: paths.project || entry.project_path, harness, entry, seat });
      break;
    }
  }
  return out;
}

/** Keys and paths of projects a live verified await serves (its hook drains that queue). */
async function awaitedProjects(ctx: InjectCtx): Promise<Set<string>> {
  const served = new Set<string>();
  for (const { rec } of await liveAwaiters(rootPaths(ctx.root).awaitersDir, ctx.exec, undefined, true)) {
    served.add(rec.project_key);
    served.add(rec.project_path);
  }
  return served;
}

function queueOf(paths: ProjectPaths): QueueDirs {
  return { stateDir: paths.stateDir, wakesDir: paths.wakesDir, forumWakesDir: paths.forumWakesDir, forumInboxDir: paths.forumInboxDir };
}

/** The earliest `delivery_failing_since` among the wakes, in epoch ms; undefined when none failed yet. */
function failingSince(wakes: readonly SoldierWake[]): number | undefined {
  let first: number | undefined;
  for (const w of wakes) {
    const at = parseTime(w.delivery_failing_since);
    if (!Number.isNaN(at) && (first === undefined || at < first)) first = at;
  }
  return first;
}

async function injectProject(ctx: InjectCtx, t: Target): Promise<void> {
  // Typing into the pane can join an unsent draft, so it happens only at a turn's end (and, in a
  // plain tmux pane, only when the input line is empty); an `idle-prompt` commander has no other
  // path, so its wakes wait in the queue, unclaimed, meanwhile.
  const idle = await t.seat.idle();
  const wake = HARNESSES[t.harness].commander.wake;
  if (wake.kind === "idle-prompt" && !idle) return;
  const got = await collectWakes(queueOf(t.paths), deliverDeps(ctx, ctx.root));
  const { claims } = got;
  if (claims.length === 0) return;
  if (ctx.signal?.aborted) {
    putBackAll(claims, (err) => ctx.log(`sentinel: tick error: ${t.paths.key}: ${errorText(err)}`));
    return;
  }
  const text = reasonText(got.soldier, got.forum);
  const now = ctx.clock.now();
  const since = failingSince(got.soldier);
  const typed = wake.kind !== "queue" || (since !== undefined && ageOf(now, since) >= scaled("herdrPromptFallback", ctx.env) && idle);
  // CMDR-09: the harness's own queue into the thread the commander ran vx from.
  const result =
    wake.kind === "queue" && !typed
      ? await wake.send({ exec: ctx.exec, env: ctx.env, cwd: existsSync(t.project) ? t.project : undefined, timeoutMs: GUARDS.codexCall }, t.entry, text)
      : await t.seat.type(text);
  if (result.ok) {
    finishClaims(claims);
    failures(ctx).delete(t.paths.key);
    const how = typed ? t.seat.via : "";
    ctx.log(`sentinel: delivered ${claims.length} wake(s) to the ${t.harness} commander of ${t.project}${how}`);
    return;
  }
  logOnce(ctx, t.paths.key, `sentinel: ${t.harness} commander of ${t.project} not reached: ${foreign(result.error)} (wakes kept, retried every pass)`);
  keepForRetry(ctx, t, claims, now);
}

/**
 * Every claim goes back to its queue; soldier wakes first get `delivery_failing_since` (kept when
 * already set), written atomically to the claimed file so the stamp travels with the wake.
 */
function keepForRetry(ctx: InjectCtx, t: Target, claims: readonly Claim[], now: number): void {
  const report = (err: unknown) => ctx.log(`sentinel: tick error: ${t.paths.key}: ${errorText(err)}`);
  for (const c of claims) {
    if (c.kind !== "soldier") continue;
    try {
      stampFailing(ctx.root, c.path, now);
    } catch (err) {
      report(err); // the wake still goes back, only without its stamp
    }
  }
  putBackAll(claims, report);
}

/** Sets `delivery_failing_since` on a claimed soldier wake unless it is already set. */
function stampFailing(root: string, claimedPath: string, now: number): void {
  const text = readStateText(claimedPath);
  if (text === undefined) return;
  const wake = parseRecord(claimedPath, text, SoldierWakeSchema).value;
  if (wake.delivery_failing_since) return;
  saveRecord(root, claimedPath, { ...wake, delivery_failing_since: isoTime(now) }, SOLDIER_KEYS);
}
