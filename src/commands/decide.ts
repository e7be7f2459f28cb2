/**
 * `vx decide <task-id> <answer...>` | `vx decide <task-id> --dismiss` (CMD-DECIDE-01..05). The
 * checks of the arguments are here; the delivery is `soldiers/decide.ts`.
 */
import type { ParsedArgs } from "citty";
import { defineVxCommand } from "../command";
import { EXIT, UsageError } from "../errors";
import { openProject } from "../project";
import { TASK_ID_ARG, positionals, taskIdThenWords } from "./parse";
import { resolveTaskRef, withTaskOp } from "../state/tasks";
import { assertPromptSize } from "../soldiers/prompt-text";
import { controlNote, terminalText } from "../terminal-text";
import { decideTask } from "../soldiers/decide";

type DecideOptions = { id: string; answer: string; dismiss: boolean };

/** `vx decide`'s arguments: usage errors (64) before any file is touched. */
export function parseDecide(args: ParsedArgs): DecideOptions {
  const { id, rest: words } = taskIdThenWords(positionals(args), "decide");
  const dismiss = Boolean(args.dismiss);
  if (dismiss && words.length > 0) throw new UsageError("--dismiss takes only the task id, there is no answer to send", "decide");
  const answer = words.join(" ");
  if (!dismiss && terminalText(answer).trim() === "") throw new UsageError("missing answer", "decide");
  assertPromptSize(answer, "the answer");
  return { id, answer, dismiss };
}

/** `vx decide`. */
export const decideCommand = defineVxCommand({
  name: "decide",
  summary: "Answer a blocked task's open question so it can continue",
  usage: ["decide <task-id> <answer...>", "decide <task-id> --dismiss"],
  args: {
    ...TASK_ID_ARG,
    dismiss: { type: "boolean", description: "Clear a question the task was marked blocked on by mistake; sends nothing" },
  },
  async run(args, deps) {
    const { id: ref, answer, dismiss } = parseDecide(args);
    const cleaned = controlNote(answer, "the answer");
    if (cleaned) deps.stderr.write(cleaned);
    const project = await openProject(deps);
    const id = resolveTaskRef(project.paths, ref, "decide");
    const final = await withTaskOp(project.paths, id, () => decideTask(deps, project, id, answer, dismiss));
    const done = dismiss ? `dismissed the question on task ${id}, now ${final.status}` : `answered task ${id}, now ${final.status}`;
    deps.stdout.write(`status=${final.status}\n${done}\n`);
    return EXIT.ok;
  },
});
