/**
 * `vx decide <task-id> <answer...>` | `vx decide <task-id> --dismiss` (CMD-DECIDE-01..05). The
 * checks of the arguments are here; the delivery is `soldiers/decide.ts`.
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
import { decideTask } from "../soldiers/decide";

type DecideOptions = { id: string; answer: string; dismiss: boolean; stdin: boolean };

/** `vx decide`'s arguments: usage errors (64) before any file is touched (`--stdin`'s answer is read after). */
export function parseDecide(args: ParsedArgs): DecideOptions {
  const { id, rest: words } = taskIdThenWords(positionals(args), "decide");
  const dismiss = Boolean(args.dismiss);
  if (dismiss && (words.length > 0 || args.stdin)) throw new UsageError("--dismiss takes only the task id, there is no answer to send", "decide");
  if (stdinOrWords(args.stdin, words, "decide")) return { id, answer: "", dismiss, stdin: true };
  const answer = words.join(" ");
  if (!dismiss && terminalText(answer).trim() === "") throw new UsageError("missing answer", "decide");
  assertPromptSize(answer, "the answer");
  return { id, answer, dismiss, stdin: false };
}

/** `vx decide`. */
export const decideCommand = defineVxCommand({
  name: "decide",
  summary: "Answer a blocked task's open question so it can continue",
  usage: ["decide <task-id> <answer...>", "decide <task-id> --stdin", "decide <task-id> --dismiss"],
  args: {
    ...TASK_ID_ARG,
    stdin: { type: "boolean", description: "Read the answer from standard input, not from the words" },
    dismiss: { type: "boolean", description: "Clear a question the task was marked blocked on by mistake; sends nothing" },
  },
  async run(args, deps) {
    const parsed = parseDecide(args);
    const { id: ref, dismiss } = parsed;
    const answer = parsed.stdin ? await stdinText(deps, "decide", "the answer") : parsed.answer;
    const cleaned = controlNote(answer, "the answer");
    if (cleaned) deps.stderr.write(cleaned);
    const project = await openProject(deps);
    const id = resolveTaskRef(project.paths, ref, "decide");
    const away = mirroredTask(project.paths, id);
    if (away) {
      const words = dismiss ? ["decide", id, "--dismiss"] : ["decide", id, "--stdin"];
      return withTaskOp(project.paths, id, () => runThere(deps, project.paths, away, words, dismiss ? undefined : answer));
    }
    const final = await withTaskOp(project.paths, id, () => decideTask(deps, project, id, answer, dismiss));
    const done = dismiss ? `dismissed the question on task ${id}, now ${final.status}` : `answered task ${id}, now ${final.status}`;
    deps.stdout.write(`status=${final.status}\n${done}\n`);
    return EXIT.ok;
  },
});
