/**
 * The answer to a blocked soldier's question, or its dismissal (CMD-DECIDE-01..05): an answer goes
 * to a modal dialog as its option's digit, otherwise as a text prompt; the task is `running` while
 * it is delivered, so a second decide is refused and a failure puts it back. `commands/decide.ts`
 * checks the arguments.
 */
import { backendFor } from "../backends";
import { isIdleStatus } from "../backends/agents";
import { backendOf } from "../backends/names";
import type { SoldierTerminal } from "../backends/terminal-types";
import type { PromptOutcome, Sighting } from "../backends/types";
import { noteCommander } from "../commanders/resolve";
import { parseModal, parseProse, resolveAnswer } from "../decisions/dialog";
import type { Deps } from "../deps";
import { VxError, errorMessage } from "../errors";
import type { Project } from "../project";
import { ensureSentinel } from "../sentinel/ensure";
import { guardedSave } from "../state/guarded";
import type { Decision, Task } from "../state/schemas";
import { EPISODE_CLEARS, composeOutput, requireLocalTask } from "../state/tasks";
import { isoTime } from "../time";
import { addAmendment, withAmendment } from "./amendments";
import { restorePatch } from "./prompt";
import { followUpText } from "./prompt-text";
import { settleSeen } from "./quick-settle";
import { soldierTerminal } from "./terminal";

/** CMD-DECIDE-03: both the refusal and the note on the task, in its backend's words. */
function paneGoneNote(pane: string): string {
  return `[vexillum] this soldier's ${pane} was already gone by the time its answer could be delivered - marked interrupted. Use 'vx redispatch' instead.`;
}

const QUESTION_MAX_CHARS = 300;

/** TSK-06's decide amendment: the question with whitespace collapsed, at most 300 characters. */
function decideAmendmentText(question: string, answer: string): string {
  const chars = Array.from(question.replace(/\s+/g, " ").trim());
  const q = chars.length > QUESTION_MAX_CHARS ? `${chars.slice(0, QUESTION_MAX_CHARS - 3).join("")}...` : chars.join("");
  return `Asked "${q}", the general answered: ${answer}`;
}

type Ctx = { deps: Deps; project: Project; terminal: SoldierTerminal };
type Delivery = { kind: "keys"; key: string } | { kind: "text" };

/** CMD-DECIDE-02: a modal answer that names an option is sent as that option's digit. */
async function chooseDelivery(ctx: Ctx, task: Task, answer: string): Promise<Delivery> {
  if (task.decision?.kind !== "modal") return { kind: "text" };
  let options = task.decision.options ?? [];
  if (options.length === 0) {
    const visible = await ctx.terminal.screen(task);
    if (visible !== undefined) options = (parseModal(visible) ?? parseProse(visible)).options;
  }
  const resolved = resolveAnswer(options, answer);
  // A dialog selects on one key press, so only options 1-9 can be chosen by digit.
  return resolved.kind === "option" && resolved.number <= 9 ? { kind: "keys", key: String(resolved.number) } : { kind: "text" };
}

/** Sends the answer: an option's digit as a key press, or a text prompt with the follow-up suffix. */
function deliver(ctx: Ctx, task: Task, answer: string, how: Delivery): Promise<PromptOutcome> {
  return how.kind === "text" ? ctx.terminal.prompt(task, followUpText(answer)) : ctx.terminal.press(task, how.key);
}

async function markInterrupted(ctx: Ctx, task: Task, note: string, extra: Partial<Task> = {}): Promise<void> {
  await guardedSave(ctx.project.paths, task.id, task, {
    ...extra,
    status: "interrupted",
    updated_at: isoTime(ctx.deps.clock.now()),
    output: composeOutput(undefined, task.output, [note]),
  });
}

/** CMD-DECIDE-02/03: deliver the answer, record it, then run the quick-settle probe. */
async function answerQuestion(ctx: Ctx, blocked: Task, answer: string): Promise<Task> {
  const { deps, project } = ctx;
  const { paths } = project;
  const how = await chooseDelivery(ctx, blocked, answer);
  const started = await guardedSave(paths, blocked.id, blocked, { ...EPISODE_CLEARS, status: "running", updated_at: isoTime(deps.clock.now()) });
  if (!started.written) {
    throw new VxError(`task ${blocked.id} changed while it was being answered (it is now ${started.task.status}) - nothing was sent`);
  }
  const running = started.task;
  let outcome: PromptOutcome;
  try {
    outcome = await deliver(ctx, running, answer, how);
  } catch (err) {
    await guardedSave(paths, running.id, running, restorePatch(blocked));
    throw new VxError(`could not deliver the answer to task ${running.id}: ${errorMessage(err)} - it is blocked again`);
  }
  if (outcome.kind === "gone") {
    const note = paneGoneNote(ctx.terminal.pane);
    await markInterrupted(ctx, running, note);
    throw new VxError(note);
  }
  if (outcome.kind === "blocked") {
    await guardedSave(paths, running.id, running, restorePatch(blocked));
    throw new VxError(
      `the soldier's pane is showing a dialog, so the answer was not sent as text - answer with one of the dialog's options, by number or exact text (task ${running.id} is blocked again)`,
    );
  }
  const commander = await noteCommander(deps, project.root, paths);
  const at = isoTime(deps.clock.now());
  const question = blocked.decision?.question ?? "";
  const amended = await addAmendment(paths, running.id, (cur) => {
    const patch: Partial<Task> = { ...commander, amendments: withAmendment(cur.amendments, decideAmendmentText(question, answer), "vx decide", at) };
    // Only the question that was answered; a newer one the sentinel recorded meanwhile stays open.
    if (cur.decision && cur.decision.asked_at === blocked.decision?.asked_at) patch.decision = { ...cur.decision, answer, answered_at: at };
    return patch;
  });
  const unchanged = amended.status === "running" && amended.updated_at === running.updated_at;
  return unchanged ? ctx.terminal.settle(amended, outcome) : amended;
}

/** CMD-DECIDE-04: nothing is sent; the new status comes from the soldier's live state. */
async function dismissQuestion(ctx: Ctx, blocked: Task): Promise<Task> {
  const { deps, project } = ctx;
  const { paths } = project;
  const at = isoTime(deps.clock.now());
  const decision: Decision | undefined = blocked.decision ? { ...blocked.decision, dismissed: true, answered_at: at } : undefined;
  const where = ctx.terminal.pane;
  let soldier: Sighting | undefined;
  try {
    soldier = await ctx.terminal.live(blocked);
  } catch (err) {
    throw new VxError(`could not read task ${blocked.id}'s soldier from ${backendOf(blocked)}: ${errorMessage(err)}`);
  }
  if (!soldier) {
    const note = `[vexillum] this soldier's ${where} was already gone when its question was dismissed - marked interrupted. Any work it already committed is still in its camp.`;
    await markInterrupted(ctx, blocked, note, { decision });
    throw new VxError(`task ${blocked.id}'s ${where} is gone - marked interrupted; use 'vx redispatch ${blocked.id}' instead`);
  }
  if (soldier.status === "blocked") {
    throw new VxError(`the soldier's pane is really blocked on a question - answer it with 'vx decide ${blocked.id} <answer>'`);
  }
  const commander = await noteCommander(deps, project.root, paths);
  const base: Partial<Task> = { ...commander, ...EPISODE_CLEARS, decision, status: "running", updated_at: at };
  let patch = base;
  if (isIdleStatus(soldier.status)) {
    // Judged as the running task it becomes, with the dismissed question no longer asked.
    const asRunning = { ...blocked, ...base } as Task;
    const settlement = await settleSeen({ clock: deps.clock, env: deps.env, exec: deps.exec, paths }, asRunning, soldier).catch(() => undefined);
    if (settlement && settlement.status !== "running") patch = { ...base, ...settlement.fields };
  }
  const saved = await guardedSave(paths, blocked.id, blocked, patch);
  if (!saved.written) {
    throw new VxError(`task ${blocked.id} changed while its question was being dismissed (it is now ${saved.task.status}) - nothing was changed`);
  }
  return saved.task;
}

/** Runs under the task's operation lock, so the checks and the delivery see one state. */
export async function decideTask(deps: Deps, project: Project, id: string, answer: string, dismiss: boolean): Promise<Task> {
  const task = requireLocalTask(project.paths, id, "decide");
  if (task.status === "interrupted") {
    throw new VxError(`task ${id} is interrupted, not blocked - its ${backendFor(task).pane} is already gone, there's nothing left to answer; use 'vx redispatch ${id}' instead`);
  }
  if (task.status !== "blocked") throw new VxError(`task ${id} is ${task.status}, not blocked - only a blocked task can be answered`);

  const ctx: Ctx = { deps, project, terminal: soldierTerminal(deps, project.paths, task) };
  try {
    return dismiss ? await dismissQuestion(ctx, task) : await answerQuestion(ctx, task, answer);
  } finally {
    ensureSentinel(deps, project.root);
  }
}
