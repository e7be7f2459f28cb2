/** The tmux launch (TMX-01..03). Like the herdr launch it never throws for tmux failures: the task ends `failed` with the reason. */
import { chmodSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { shellQuote } from "../../harnesses/hook-shell";
import type { HookedLaunch } from "../../harnesses/types";
import { tmuxSurvey } from "./survey";
import { agentName, fallbackName } from "../soldier-name";
import { RESEND_POLLS, type ReadyPane, lastWords, waitReady, waitStartReport } from "../readiness";
import { enterWhileUnsent } from "../unsent";
import { type TmuxClient, createTmuxClient, defaultSocket, ensureSocketDir } from "./client";
import type { Deps } from "../../deps";
import { errorMessage } from "../../errors";
import { DEFAULT_HARNESS, type HarnessName, harnessOf } from "../../harnesses";
import { writeStateFile } from "../../state/files";
import { guardedSave } from "../../state/guarded";
import { markFailed } from "../../state/mark-failed";
import { type ProjectPaths, realpathOr } from "../../state/paths";
import type { Task } from "../../state/schemas";
import { EPISODE_CLEARS } from "../../state/tasks";
import { COUNTS, deadlineIn, isoTime, scaled } from "../../time";
import { stateHooks } from "../../harnesses/soldier-hooks";
import { type LaunchResult, type LifecycleRules, type Relaunch, changedUnderLaunch } from "../terminal-types";
import { soldierExecArgv } from "../soldier-exec";
import { hooksDir, soldierEnvFile, writeSoldierEnv } from "../soldier-env";
import { deliverUnderIntent, readSoldierState, reportedSince, warnTo } from "../../state/soldier-state";
import { loadTask } from "../../state/tasks";

type Files = (HookedLaunch["files"][number] & { mode?: number })[];

type TmuxLaunchCtx = { deps: Deps; paths: ProjectPaths; tmux: TmuxClient; hooks: HookedLaunch & { files: Files }; rules: LifecycleRules };

/** The server recorded on the task, else the one a plain `tmux` here would use. */
export function launchTmuxOf(deps: Deps, task: Task): TmuxClient {
  return createTmuxClient({ exec: deps.exec, env: deps.env, socket: task.tmux_socket ?? defaultSocket(deps.env) });
}

/** TMX-05. Hooks run one executable, so vx run from source gets a wrapper beside the hook files. */
export function soldierHooks(deps: Deps, paths: ProjectPaths, task: Task): HookedLaunch & { files: Files } {
  const dir = hooksDir(paths, task.id);
  const wrapper = deps.self.length > 1 ? { path: join(dir, "vx"), content: `#!/bin/sh\nexec ${deps.self.map(shellQuote).join(" ")} "$@"\n`, mode: 0o700 } : undefined;
  const hooks = stateHooks(task.harness ?? DEFAULT_HARNESS, { vx: wrapper?.path ?? deps.self[0] ?? "vx", taskId: task.id, hooksDir: dir });
  return wrapper ? { ...hooks, files: [...hooks.files, wrapper] } : hooks;
}

const NOT_READY = "the soldier's harness did not become ready in its tmux session within 30s";

/** `kill`: the session this launch made (its id, from the command that made it). */
async function fail(ctx: TmuxLaunchCtx, task: Task, reason: string, kill?: string): Promise<LaunchResult> {
  if (kill) await ctx.tmux.killSession(kill).catch(() => false);
  const saved = await markFailed(ctx.paths, task, reason, ctx.deps.clock.now());
  return { task: saved.task, error: reason };
}

/** HRD-06 naming against tmux: an existing session name counts as taken (TMX-01). */
async function sessionName(tmux: TmuxClient, task: Task): Promise<string> {
  const candidate = agentName(task.prompt, task.id);
  return (await tmux.hasSession(candidate)) ? fallbackName(candidate, task.id) : candidate;
}

/** tmux clears a dead pane's screen: its history is read, else the last screen seen alive. */
async function deadWords(ctx: TmuxLaunchCtx, session: string, alive: string | undefined): Promise<string> {
  const history = await ctx.tmux.capture(session, COUNTS.transcriptLines).catch(() => "");
  return lastWords(history) || lastWords(alive ?? "");
}

function readyPane(ctx: TmuxLaunchCtx, pane: string): ReadyPane {
  return {
    async look(last) {
      try {
        const screen = await ctx.tmux.capture(pane);
        if (await ctx.tmux.paneDead(pane)) return { gone: await deadWords(ctx, pane, last) };
        return { screen };
      } catch {
        return { gone: lastWords(last ?? "") };
      }
    },
    press: (key) => ctx.tmux.sendKeys(pane, [key]),
  };
}

/** TMX-03: the path is read for this pane alone (in a survey a newline in it would split its row). */
async function isolationGate(ctx: TmuxLaunchCtx, pane: string, task: Task): Promise<string | undefined> {
  const info = await ctx.tmux.paneInfo(pane);
  const cwd = info ? realpathOr(info.path) : "";
  const camp = realpathOr(task.camp_path ?? "");
  const { actual: branch, expected } = await ctx.rules.campBranches(ctx.deps.exec, task);
  if (cwd === camp && branch === expected) return undefined;
  return `isolation gate failed: cwd=${cwd} branch=${branch} expected_cwd=${camp} expected_branch=${expected}`;
}

export async function launchTmuxSoldier(ctx: TmuxLaunchCtx, pending: Task, relaunch?: Relaunch): Promise<LaunchResult> {
  const { deps, paths, tmux, hooks } = ctx;
  const harness = pending.harness ?? DEFAULT_HARNESS;
  const startedAt = deps.clock.now();
  let name: string;
  const envFile = soldierEnvFile(paths, pending.id);
  let ids: { sessionId: string; paneId: string };
  try {
    name = await sessionName(tmux, pending);
  } catch (err) {
    return fail(ctx, pending, `could not start the soldier's tmux session: ${errorMessage(err)}`);
  }
  // Saved before the session exists, so a dead launch's session is found again (`backends/leftovers.ts`).
  const intent = await guardedSave(paths, pending.id, pending, {
    backend: "tmux",
    tmux_target: name,
    tmux_socket: tmux.socket,
    tmux_session_id: undefined,
    tmux_pane_id: undefined,
  });
  if (!intent.written) return changedUnderLaunch(intent.task);
  pending = intent.task;
  try {
    if (tmux.socket) ensureSocketDir(tmux.socket);
    for (const f of hooks.files) {
      writeStateFile(paths.root, f.path, f.content);
      if (f.mode) chmodSync(f.path, f.mode);
    }
    for (const l of hooks.links ?? []) {
      rmSync(l.path, { force: true });
      symlinkSync(l.target, l.path);
    }
    writeSoldierEnv(paths, pending.id, deps.env);
    ids = await tmux.newSession({
      name,
      cwd: pending.camp_path ?? "",
      env: hooks.env,
      argv: soldierExecArgv(deps.self, envFile, [...harnessOf(harness).program(deps.self), ...(relaunch?.args ?? []), ...harnessOf(harness).soldierArgs(pending.model, pending.effort), ...hooks.args]),
      // A harness that exits keeps its pane, so what it said can be told (and read in the session).
      keepDeadPane: true,
      tag: pending.id,
    });
  } catch (err) {
    rmSync(envFile, { force: true });
    return fail(ctx, pending, `could not start the soldier's tmux session: ${errorMessage(err)}`);
  }
  const { sessionId, paneId } = ids;
  const step = await guardedSave(paths, pending.id, pending, {
    status: "running",
    updated_at: isoTime(deps.clock.now()),
    backend: "tmux",
    tmux_target: name,
    tmux_socket: tmux.socket,
    tmux_session_id: sessionId,
    tmux_pane_id: paneId,
  });
  if (!step.written) {
    await tmux.killSession(sessionId).catch(() => false);
    rmSync(envFile, { force: true });
    return changedUnderLaunch(step.task);
  }
  let task = step.task;

  // From here the session's own ids: its name may be another session's once this one ends.
  const ready = await waitReady(readyPane(ctx, paneId), harness, deps, scaled("harnessReady", deps.env));
  // Never left behind, whatever became of the pane.
  rmSync(envFile, { force: true });
  if (ready.kind === "gone") {
    const words = ready.last ? ` (its last output: "${ready.last}")` : "";
    return fail(ctx, task, `${harness} exited in its tmux session before it became ready${words}`, sessionId);
  }
  if (ready.kind === "timeout") return fail(ctx, task, NOT_READY, sessionId);
  // Ready: from here a harness that exits closes its session, as the sentinel and users expect.
  await tmux.releaseDeadPane(paneId).catch(() => undefined);
  const gate = await isolationGate(ctx, paneId, task);
  if (gate) return fail(ctx, task, gate, sessionId);
  await waitStartReport(readyPane(ctx, paneId), harness, () => reportedSince(paths, task.id, startedAt), deps, scaled("quickSettle", deps.env));

  const intentAt = isoTime(deps.clock.now());
  const restamp = await guardedSave(paths, task.id, task, { ...EPISODE_CLEARS, updated_at: isoTime(deps.clock.now()) });
  if (!restamp.written) return changedUnderLaunch(restamp.task);
  task = restamp.task;
  const text = relaunch?.text ?? ctx.rules.firstPrompt(paths, task);
  try {
    await deliverUnderIntent(paths, task.id, intentAt, harness, () => pasteAndSubmit(deps, tmux, paneId, text, harness), warnTo(deps.stderr));
  } catch (err) {
    return fail(ctx, task, `could not deliver the soldier's first prompt: ${errorMessage(err)}`, sessionId);
  }
  return { task: await probe(ctx, task) };
}

/** One paste plus Enter; a harness that can drop the Enter gets it again while the prompt sits alone in its box. */
export async function pasteAndSubmit(deps: Pick<Deps, "clock" | "env">, tmux: TmuxClient, pane: string, text: string, harness: HarnessName | undefined): Promise<void> {
  const unsent = harnessOf(harness).unsent;
  const before = unsent ? await tmux.capture(pane).catch(() => "") : "";
  await tmux.paste(pane, text);
  if (!unsent) return;
  const { clock, env } = deps;
  const pollMs = scaled("trustPoll", env) * 2 * RESEND_POLLS;
  await enterWhileUnsent({ term: tmux, pane, clock, env, pollMs, holds: (screen) => unsent.test(screen) }, before, text);
}

/** CMD-DISPATCH-06: waits for a report of the turn over, then settles what is certain; still working is left to the sentinel. */
export async function probe(ctx: Pick<TmuxLaunchCtx, "deps" | "paths" | "tmux" | "rules">, task: Task): Promise<Task> {
  const { clock, env } = ctx.deps;
  const deadline = deadlineIn(clock, scaled("quickSettle", env));
  const since = Date.parse(task.updated_at);
  const turnOver = () => {
    const r = readSoldierState(ctx.paths, task.id);
    return r !== undefined && r.state !== "working" && Date.parse(r.at) >= since;
  };
  while (!turnOver() && !deadline.passed()) await clock.sleep(scaled("trustPoll", env));
  const current = () => loadTask(ctx.paths, task.id)?.value ?? task;
  if (!turnOver()) return current();
  try {
    const soldier = tmuxSurvey(ctx.tmux, await ctx.tmux.listPanes()).find(task, ctx.paths);
    if (!soldier) return current();
    const settlement = await ctx.rules.judge({ clock, env, exec: ctx.deps.exec, paths: ctx.paths }, task, soldier);
    if (settlement.status === "running") return current();
    return (await guardedSave(ctx.paths, task.id, task, settlement.fields)).task;
  } catch {
    return current();
  }
}
