/**
 * The herdr launch (CMD-DISPATCH-03 from "create the pane" on). Every save is guarded on the status and `updated_at` it was
 * decided on; a failure leaves the task `failed` with its lease kept, so it can be struck.
 */
import { HerdrError } from "./types";
import { agentName, fallbackName } from "../soldier-name";
import { markFailed } from "../../state/mark-failed";
import { type HerdrOps, closeTab, isGone, promptAgent, readTranscript, readVisible, startAgent } from "./ops";
import { type ReadyPane, lastWords, showsTrustDialog, waitReady, waitStartReport } from "../readiness";
import { launcherDir, removeLaunchFiles, writeLauncherScript, writeSoldierEnv } from "../soldier-env";
import { agentTarget } from "./types";
import type { PromptOutcome } from "../types";
import { type LaunchResult, type LifecycleRules, type Relaunch, type Settlement, changedUnderLaunch } from "../terminal-types";
import type { Deps } from "../../deps";
import { DEFAULT_HARNESS, type HarnessName, harnessOf } from "../../harnesses";
import { errorMessage } from "../../errors";
import type { Exec } from "../../exec";
import { guardedSave } from "../../state/guarded";
import type { ProjectPaths } from "../../state/paths";
import type { Task } from "../../state/schemas";
import { reportedSince } from "../../state/soldier-state";
import { EPISODE_CLEARS, loadTask } from "../../state/tasks";
import { isoTime, nominalSeconds, scaled } from "../../time";

type LaunchCtx = { deps: Deps; paths: ProjectPaths; ops: HerdrOps; workspace: string; rules: LifecycleRules };

// The failed call's argv names the name tried, even after startAgent switched to the fallback.
function nameTried(err: unknown, candidate: string, id: string): string {
  const fallback = fallbackName(candidate, id);
  return err instanceof HerdrError && err.argv.includes(fallback) ? fallback : candidate;
}

async function fail(ctx: LaunchCtx, task: Task, reason: string, extra: Partial<Task> = {}): Promise<LaunchResult> {
  const saved = await markFailed(ctx.paths, task, reason, ctx.deps.clock.now(), { extra });
  return { task: saved.task, error: reason };
}

/** The visible screen: a dialog drawn at the top of a fresh pane is read whole, not cut to its bottom rows. */
function herdrPane(ops: HerdrOps, name: string): ReadyPane {
  return {
    async look(last) {
      try {
        return { screen: await ops.herdr.agentRead(name, "visible") };
      } catch (err) {
        if (isGone(err)) return { gone: lastWords(last ?? "") };
        throw err;
      }
    },
    press: (key) => ops.herdr.agentSendKeys(name, [key]),
  };
}

async function notReady(ctx: LaunchCtx, name: string, harness: HarnessName): Promise<string | undefined> {
  const ready = await waitReady(herdrPane(ctx.ops, name), harness, ctx.deps, scaled("harnessReady", ctx.deps.env));
  if (ready.kind === "ready") return undefined;
  if (ready.kind === "gone") return `${harness} exited in its herdr pane before it became ready${ready.last ? ` (its last output: "${ready.last}")` : ""}`;
  if (ready.screen && showsTrustDialog(ready.screen)) return `${harness} is still showing a folder-trust dialog vx could not answer (no option trusts the folder, or its keys did nothing)`;
  return `${harness} did not become ready in its herdr pane within ${nominalSeconds("harnessReady")}s (a start-up screen vx does not answer, or a slow start)`;
}

/** Launches the soldier of a `pending` task whose camp is leased; never throws for herdr failures. */
export async function launchSoldier(ctx: LaunchCtx, pending: Task, relaunch?: Relaunch): Promise<LaunchResult> {
  const { deps, paths } = ctx;
  const harness = pending.harness ?? DEFAULT_HARNESS;
  try {
    writeSoldierEnv(paths, pending.id, { ...deps.env, ...harnessOf(harness).soldierEnv });
    writeLauncherScript(paths, pending.id, deps.self, harnessOf(harness).exe);
  } catch (err) {
    removeLaunchFiles(paths, pending.id);
    return fail(ctx, pending, `could not write the soldier's launcher: ${errorMessage(err)}`);
  }
  try {
    return await launchInTab(ctx, pending, harness, relaunch);
  } finally {
    // Never left behind, whatever became of the pane.
    removeLaunchFiles(paths, pending.id);
  }
}

async function launchInTab(ctx: LaunchCtx, pending: Task, harness: HarnessName, relaunch?: Relaunch): Promise<LaunchResult> {
  const { deps, paths, ops } = ctx;
  const now = () => isoTime(deps.clock.now());
  const candidate = agentName(pending.prompt, pending.id);
  // The launcher script first, by the harness's name, which `agent start` runs; then the dispatcher's PATH.
  const path = [launcherDir(paths, pending.id), deps.env.PATH].filter(Boolean).join(":");
  let tab: { tabId: string; paneId: string };
  try {
    tab = await ops.herdr.tabCreate({ workspace: ctx.workspace, cwd: pending.camp_path ?? "", label: candidate, env: { PATH: path } });
  } catch (err) {
    return fail(ctx, pending, `could not create the soldier's herdr tab: ${errorMessage(err)}`);
  }

  let step: Awaited<ReturnType<typeof guardedSave>>;
  try {
    step = await guardedSave(paths, pending.id, pending, {
      status: "running",
      updated_at: now(),
      backend: "herdr",
      herdr_workspace_id: ctx.workspace,
      herdr_tab_id: tab.tabId,
      herdr_pane_id: tab.paneId,
      herdr_agent_name: candidate,
    });
  } catch (err) {
    // Nobody else knows this tab yet, so nobody else would ever close it.
    await closeTab(ops, tab.tabId).catch(() => undefined);
    throw err;
  }
  if (!step.written) {
    await closeTab(ops, tab.tabId).catch(() => undefined);
    return changedUnderLaunch(step.task);
  }
  let task = step.task;

  const startedAt = deps.clock.now();
  let name: string;
  try {
    name = await startAgent(ops, {
      name: candidate,
      kind: harness,
      pane: tab.paneId,
      args: [...(relaunch?.args ?? []), ...harnessOf(harness).soldierArgs(task.model, task.effort)],
      taskId: task.id,
    });
  } catch (err) {
    const used = nameTried(err, candidate, task.id);
    return fail(ctx, task, `could not start ${harness} in the soldier's pane: ${errorMessage(err)}`, { herdr_agent_name: used });
  }
  let why: string | undefined;
  try {
    why = await notReady(ctx, name, harness);
  } catch (err) {
    why = `could not read the soldier's herdr pane while ${harness} started: ${errorMessage(err)}`;
  }
  if (why) return fail(ctx, task, why, { herdr_agent_name: name });
  await waitStartReport(herdrPane(ops, name), harness, () => reportedSince(paths, task.id, startedAt), deps, scaled("quickSettle", deps.env));

  // The settle grace (SEN-07) runs from the prompt; marks set while the harness started describe that start.
  step = await guardedSave(paths, task.id, task, { ...EPISODE_CLEARS, updated_at: now(), herdr_agent_name: name });
  if (!step.written) return changedUnderLaunch(step.task);
  task = step.task;

  const text = relaunch?.text ?? ctx.rules.firstPrompt(paths, task);
  let outcome: PromptOutcome;
  try {
    outcome = await promptAgent(ops, name, text, { waitTimeoutMs: scaled("quickSettle", deps.env), unsent: harnessOf(harness).unsent });
  } catch (err) {
    return fail(ctx, task, `could not deliver the soldier's first prompt: ${errorMessage(err)}`);
  }
  if (outcome.kind === "gone") return fail(ctx, task, "the soldier's herdr pane closed before it could be prompted");
  if (outcome.kind === "blocked") {
    return fail(ctx, task, "the soldier's pane is showing a dialog, so its first prompt was not sent");
  }
  return { task: await settleAfterPrompt(ctx, task, outcome) };
}

/** A pane unreadable here leaves the task running for the sentinel: the soldier is already working. */
export async function settleAfterPrompt(ctx: Omit<LaunchCtx, "workspace">, task: Task, outcome: PromptOutcome): Promise<Task> {
  if (task.status !== "running") return task;
  let settlement: Settlement;
  try {
    settlement = await quickSettle({ ops: ctx.ops, exec: ctx.deps.exec, paths: ctx.paths, judge: ctx.rules.judge }, task, outcome);
  } catch {
    return loadTask(ctx.paths, task.id)?.value ?? task;
  }
  // Reported as it is now: the sentinel may have settled it during the probe.
  if (settlement.status === "running") return loadTask(ctx.paths, task.id)?.value ?? task;
  return (await guardedSave(ctx.paths, task.id, task, settlement.fields)).task;
}

type QuickSettleCtx = { ops: HerdrOps; exec: Exec; paths: ProjectPaths; judge: LifecycleRules["judge"] };

/** CMD-DISPATCH-06: only a settled wait is judged; anything else stays running. */
export async function quickSettle(ctx: QuickSettleCtx, task: Task, outcome: PromptOutcome): Promise<Settlement> {
  if (outcome.kind !== "settled") return { status: "running", fields: {} };
  const target = task.herdr_agent_name || agentTarget(outcome.agent);
  return ctx.judge({ clock: ctx.ops.clock, env: ctx.ops.env, exec: ctx.exec, paths: ctx.paths }, task, {
    status: outcome.agent.agent_status,
    read: () => readTranscript(ctx.ops, target),
    readVisible: () => readVisible(ctx.ops, target),
  });
}
