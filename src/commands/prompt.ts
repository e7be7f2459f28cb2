/**
 * `vx prompt <task-id> <text...>`: a follow-up for a soldier that already finished
 * (CMD-PROMPT-01..03). The checks of the arguments are here; the delivery is `soldiers/prompt.ts`.
 */
import type { ParsedArgs } from "citty";
import { defineVxCommand } from "../command";
import { EXIT, UsageError } from "../errors";
import { openProject } from "../project";
import { TASK_ID_ARG, positionals, taskIdThenWords } from "./parse";
import { resolveTaskRef, withTaskOp } from "../state/tasks";
import { assertPromptSize } from "../soldiers/prompt-text";
import { controlNote, terminalText } from "../terminal-text";
import { promptTask } from "../soldiers/prompt";

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
    const final = await withTaskOp(paths, id, () => promptTask(deps, project, id, text));
    deps.stdout.write(`status=${final.status}\nprompted task ${id}, now ${final.status}\n`);
    return EXIT.ok;
  },
});
