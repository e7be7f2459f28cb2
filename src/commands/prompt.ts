/**
 * `vx prompt <task-id> <text...>`: a follow-up for a soldier that already finished
 * (CMD-PROMPT-01..03, T9). The task goes back to `running` before the text is sent, so the
 * sentinel watches the new turn; a delivery that fails puts it back as it was.
 */
import type { ParsedArgs } from "citty";
import { composeOutput } from "../state/tasks";
import { guardedSave } from "../state/guarded";
import type { PromptOutcome } from "../backends/types";
import { leaseOf } from "../camps/pool";
import { defineVxCommand } from "../command";
import { noteCommander } from "../commanders/resolve";
import { EXIT, UsageError, VxError, errorMessage } from "../errors";
import type { Deps } from "../deps";
import { type Project, openProject } from "../project";
import { ensureSentinel } from "../sentinel/ensure";
import { TASK_ID_ARG, positionals, taskIdThenWords } from "./parse";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { EPISODE_CLEARS, requireTask, resolveTaskRef, withTaskOp } from "../state/tasks";
import { addAmendment, withAmendment } from "../soldiers/amendments";
import { assertPromptSize, followUpText } from "../soldiers/prompt-text";
import { controlNote, terminalText } from "../terminal-text";
import { isoTime } from "../time";
import { soldierTerminal } from "../soldiers/terminal";
import { backendFor } from "../backends";

/** CMD-PROMPT-01: why this task cannot be prompted, or undefined when it can. */
export function promptRefusal(paths: ProjectPaths, task: Task): string | undefined {
  const id = task.id;
  switch (task.status) {
    case "running":
      return `task ${id} is already running - wait for it to settle`;
    case "blocked":
      return `task ${id} is blocked on a question ("${task.decision?.question ?? ""}") - answer it with 'vx decide ${id} <answer>', or if it was marked blocked by mistake clear it with 'vx decide ${id} --dismiss'`;
    case "interrupted":
      return `task ${id} is interrupted, its ${backendFor(task).pane} is gone - use 'vx redispatch ${id}' instead`;
    case "done":
    case "shipped":
    case "unconfirmed":
      return leaseOf(paths, id) ? undefined : `task ${id}'s camp was already struck, its soldier is gone - dispatch a new one instead`;
    default:
      return `task ${id} is ${task.status} - only a done, shipped or unconfirmed task can be prompted`;
  }
}

/** The fields a failed delivery puts back: everything the `running` save changed. */
export function restorePatch(before: Task): Partial<Task> {
  return {
    status: before.status,
    updated_at: before.updated_at,
    agent_not_found_since: before.agent_not_found_since,
    idle_unconfirmed_since: before.idle_unconfirmed_since,
    held_running_since: before.held_running_since,
    pause_seen_at: before.pause_seen_at,
    commander_project: before.commander_project,
    commander_pane: before.commander_pane,
  };
}

/** Runs under the task's operation lock, so the checks and the delivery see one state. */
async function promptTask(deps: Deps, project: Project, id: string, text: string): Promise<number> {
  const { paths } = project;
  const before = requireTask(paths, id);
  const refusal = promptRefusal(paths, before);
  if (refusal) throw new VxError(refusal);

  try {
    const commander = await noteCommander(deps, project.root, paths);
    const started = await guardedSave(paths, id, before, {
      ...commander,
      ...EPISODE_CLEARS,
      status: "running",
      updated_at: isoTime(deps.clock.now()),
    });
    if (!started.written) {
      throw new VxError(`task ${id} changed while it was being prompted (it is now ${started.task.status}) - nothing was sent`);
    }
    const running = started.task;
    const terminal = soldierTerminal(deps, paths, running);
    const where = terminal.pane;
    let outcome: PromptOutcome;
    try {
      outcome = await terminal.prompt(running, followUpText(text));
    } catch (err) {
      await guardedSave(paths, id, running, restorePatch(before));
      throw new VxError(`could not deliver the prompt to task ${id}: ${errorMessage(err)} - it is ${before.status} again`);
    }
    if (outcome.kind === "gone") {
      const note = `[vexillum] this soldier's ${where} was already gone when 'vx prompt' tried to reach it - marked interrupted. Any work it already committed is still in its camp.`;
      await guardedSave(paths, id, running, {
        status: "interrupted",
        updated_at: isoTime(deps.clock.now()),
        output: composeOutput(undefined, running.output, [note]),
      });
      throw new VxError(`task ${id}'s ${where} is gone, so the prompt was not delivered - marked interrupted; use 'vx redispatch ${id}' instead`);
    }
    if (outcome.kind === "blocked") {
      throw new VxError(`the soldier's pane is showing a dialog, so the prompt was not sent - the sentinel will record it as blocked; answer it with 'vx decide ${id} <answer>'`);
    }
    const amended = await addAmendment(paths, id, (cur) => ({
      amendments: withAmendment(cur.amendments, text, "vx prompt", isoTime(deps.clock.now())),
    }));
    const unchanged = amended.status === "running" && amended.updated_at === running.updated_at;
    const final = unchanged ? await terminal.settle(amended, outcome) : amended;
    deps.stdout.write(`status=${final.status}\nprompted task ${id}, now ${final.status}\n`);
    return EXIT.ok;
  } finally {
    ensureSentinel(deps, project.root);
  }
}

/** `vx prompt`. */
export type PromptOptions = { id: string; text: string };

/** `vx prompt`'s arguments: usage errors (64) before any file is touched. */
export function parsePrompt(args: ParsedArgs): PromptOptions {
  const { id, rest: words } = taskIdThenWords(positionals(args), "prompt");
  const text = words.join(" ");
  if (terminalText(text).trim() === "") throw new UsageError("the prompt text is empty", "prompt");
  assertPromptSize(text, "the prompt");
  return { id, text };
}

export const promptCommand = defineVxCommand({
  name: "prompt",
  summary: "Send a follow-up prompt to a soldier that already finished",
  usage: ["prompt <task-id> <text...>"],
  args: { ...TASK_ID_ARG },
  async run(args, deps) {
    const { id: ref, text } = parsePrompt(args);
    const cleaned = controlNote(text, "the prompt");
    if (cleaned) deps.stderr.write(cleaned);
    const project = await openProject(deps);
    const { paths } = project;
    const id = resolveTaskRef(paths, ref, "prompt");
    return withTaskOp(paths, id, () => promptTask(deps, project, id, text));
  },
});
