/**
 * The exact texts vx submits to a soldier (CMD-DISPATCH-05). Every one ends with the trailer
 * sentence, so the sentinel can find where the soldier's last turn starts (SEN-16). The stored
 * `prompt` never includes any of this.
 */
import { VxError } from "../errors";
import { TRAILER } from "../lifecycle/evidence";
import type { Task } from "../state/schemas";

/** The line that introduces each block. */
export const SEPARATOR = "---";

/** The scout's report block, naming the file `vx strike` will look for. */
export function reportBlock(reportPath: string): string {
  return [
    `Before you finish, write your final report as a single Markdown file at: ${reportPath}`,
    "Create its parent directories if needed. 'vx strike' will refuse to strike your camp without it.",
  ].join("\n");
}

/** The pause block; `pauseFile` is `<state dir>/pauses/<soldier name>.md`. */
export function pauseBlock(pauseFile: string): string {
  return `If you have to wait for something outside this session (a long job, a rate limit, a person), declare a pause before ending your turn: write ${pauseFile} with a first line "paused: <why>" and optionally a second line "until: <when>". Delete it when you resume. A pause is trusted for 30 minutes.`;
}

/** The needs-decision block, always last: it ends with the trailer. */
export const DECISION_BLOCK = [
  "If you cannot continue without a decision from the general, end your turn with exactly one line:",
  "needs-decision: <a one-line summary of the question and any options>",
  `Use that line only when you truly need a decision; ${TRAILER}`,
].join("\n");

/** The suffix of `vx prompt` texts and prose `vx decide` answers. */
export const FOLLOW_UP_BLOCK = `If you end up needing a decision, end your turn with one line "needs-decision: <question>"; ${TRAILER}`;

// A blank line before `---` keeps Markdown from reading the line above it as a heading.
function withBlocks(text: string, blocks: string[]): string {
  return [text, ...blocks.map((b) => `${SEPARATOR}\n${b}`)].join("\n\n");
}

/** What a soldier is first prompted with: the general's prompt, then the dispatch blocks. */
export function dispatchText(opts: { prompt: string; kind: Task["kind"]; reportPath: string; pauseFile: string }): string {
  const blocks = opts.kind === "scout" ? [reportBlock(opts.reportPath)] : [];
  blocks.push(pauseBlock(opts.pauseFile), DECISION_BLOCK);
  return withBlocks(opts.prompt, blocks);
}

/** A follow-up (`vx prompt`, prose `vx decide`): the text, then the short decision block. */
export function followUpText(text: string): string {
  return withBlocks(text, [FOLLOW_UP_BLOCK]);
}

/** The largest prompt, follow-up or answer vx sends (it travels as one argument to herdr). */
export const MAX_PROMPT_BYTES = 100_000;

/** Refuses a text over MAX_PROMPT_BYTES, naming what it is (`the prompt`, `the answer`). */
export function assertPromptSize(text: string, what: string): void {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_PROMPT_BYTES) throw new VxError(`${what} is too long (${bytes} bytes, at most ${MAX_PROMPT_BYTES}) - write the long part to a file in the project and point the soldier at it`);
}
