/**
 * Commands parse, then run: the argument halves every task command shares. A parser turns
 * citty's args into plain options and throws UsageError (64) for bad input before any file is
 * touched (TSK-02); it never reads state, so it is tested apart from the work.
 */
import type { ArgsDef, ParsedArgs } from "citty";
import type { Deps } from "../deps";
import { UsageError } from "../errors";
import { MAX_PROMPT_BYTES, assertPromptSize } from "../soldiers/prompt-text";
import { terminalText } from "../terminal-text";
import { assertTaskRef } from "../state/ids";

/** The `<task-id>` positional, declared so the argument definition says what a command takes. */
export const TASK_ID_ARG = {
  "task-id": { type: "positional", required: false, description: "The task's id (16 lowercase hex characters) or a unique prefix of it" },
} as const satisfies ArgsDef;

/** The words after the flags, as strings. */
export function positionals(args: Pick<ParsedArgs, "_">): string[] {
  return (args._ as unknown[]).map(String);
}

/** A task id (or a prefix: `resolveTaskRef` once the project is open), then the words after it (the answer, the prompt text). */
export function taskIdThenWords(words: readonly string[], command: string): { id: string; rest: string[] } {
  const [raw, ...rest] = words;
  if (raw === undefined) throw new UsageError("missing task id", command);
  return { id: assertTaskRef(raw, command), rest };
}

/** The one task id (or a prefix) a command takes and nothing after it. */
export function taskIdOnly(words: readonly string[], command: string): string {
  const [raw, extra] = words;
  if (raw === undefined) throw new UsageError("missing task id", command);
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`, command);
  return assertTaskRef(raw, command);
}

/** `--stdin`'s text (what the commander's machine sends a machine, MCH-10): read to its end, then the same checks as words. */
export async function stdinText(deps: Pick<Deps, "readAll">, command: string, what: string): Promise<string> {
  if (!deps.readAll) throw new UsageError("--stdin: this vx cannot read its standard input here", command);
  const text = await deps.readAll(MAX_PROMPT_BYTES + 1);
  if (terminalText(text).trim() === "") throw new UsageError(`${what} is empty (standard input had none)`, command);
  assertPromptSize(text, what);
  return text;
}

/** `--stdin` and words both: which is the text? */
export function stdinOrWords(stdin: unknown, words: readonly string[], command: string): boolean {
  if (stdin && words.length > 0) throw new UsageError("--stdin reads the text from standard input: give no text words with it", command);
  return Boolean(stdin);
}
