/**
 * `vx prompt <task-id> <text...>`: a follow-up for a soldier that already finished
 * (CMD-PROMPT-01..03). The checks of the arguments are here; the delivery is `soldiers/prompt.ts`.
 */
import type { ParsedArgs } from "citty";
import { defineVxCommand } from "../command";
import { EXIT, UsageError } from "../errors";
import { openProject } from "../project";
import { TASK_ID_ARG, positionals, stdinOrWords, stdinText, taskIdThenWords } from "./parse";
import { mirroredTask, runThere } from "../soldiers/remote-task";
import { resolveTaskRef, withTaskOp } from "../state/tasks";
import { assertPromptSize } from "../soldiers/prompt-text";
import { controlNote, terminalText } from "../terminal-text";
import { promptTask } from "../soldiers/prompt";

/** `vx prompt`. */
export type PromptOptions = { id: string; text: string; stdin: boolean };

/** `vx prompt`'s arguments: usage errors (64) before any file is touched (`--stdin`'s text is read after). */
export function parsePrompt(args: ParsedArgs): PromptOptions {
  const { id, rest: words } = taskIdThenWords(positionals(args), "prompt");
  if (stdinOrWords(args.stdin, words, "prompt")) return { id, text: "", stdin: true };
  const text = words.join(" ");
  if (terminalText(text).trim() === "") throw new UsageError("the prompt text is empty", "prompt");
  assertPromptSize(text, "the prompt");
  return { id, text, stdin: false };
}

export const promptCommand = defineVxCommand({
  name: "prompt",
  summary: "Send a follow-up prompt to a soldier that already finished",
  usage: ["prompt <task-id> <text...>", "prompt <task-id> --stdin"],
  args: { ...TASK_ID_ARG, stdin: { type: "boolean", description: "Read the prompt from standard input, not from the words" } },
  async run(args, deps) {
    const parsed = parsePrompt(args);
    const { id: ref } = parsed;
    const text = parsed.stdin ? await stdinText(deps, "prompt", "the prompt") : parsed.text;
    const cleaned = controlNote(text, "the prompt");
    if (cleaned) deps.stderr.write(cleaned);
    const project = await openProject(deps);
    const { paths } = project;
    const id = resolveTaskRef(paths, ref, "prompt");
    const away = mirroredTask(paths, id);
    if (away) return withTaskOp(paths, id, () => runThere(deps, paths, away, ["prompt", id, "--stdin"], text));
    const final = await withTaskOp(paths, id, () => promptTask(deps, project, id, text));
    deps.stdout.write(`status=${final.status}\nprompted task ${id}, now ${final.status}\n`);
    return EXIT.ok;
  },
});
