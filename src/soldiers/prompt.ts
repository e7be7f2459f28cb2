/**
 * A follow-up for a soldier that already finished (CMD-PROMPT-01..03): the task goes back to
 * `running` before the text is sent, so the sentinel watches the new turn; a delivery that fails
 * puts it back as it was. `commands/prompt.ts` checks the arguments.
 */
import { backendFor } from "../backends";
import type { PromptOutcome } from "../backends/types";
import { leaseOf } from "../camps/pool";
import { noteCommander } from "../commanders/resolve";
import type { Deps } from "../deps";
import { VxError, errorMessage } from "../errors";
import type { Project } from "../project";
import { ensureSentinel } from "../sentinel/ensure";
import { guardedSave } from "../state/guarded";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { EPISODE_CLEARS, composeOutput, requireLocalTask } from "../state/tasks";
import { isoTime } from "../time";
import { addAmendment, withAmendment } from "./amendments";
import { followUpText } from "./prompt-text";
import { soldierTerminal } from "./terminal";

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
    case "failed":
      return `task ${id} is failed - vx could not start or prompt its soldier, so there is none to prompt; run it again with 'vx redispatch ${id}'`;
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
export async function promptTask(deps: Deps, project: Project, id: string, text: string): Promise<Task> {
  const { paths } = project;
  const before = requireLocalTask(paths, id, "prompt");
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
    return unchanged ? await terminal.settle(amended, outcome) : amended;
  } finally {
    ensureSentinel(deps, project.root);
  }
}
