/**
 * Pure pane-text analysis for the sentinel: the final-turn window, still-running evidence and the
 * needs-decision line (SPEC SEN-11, SEN-12, SEN-13, SEN-16). Works on raw, unredacted text (RED-01).
 */

import { redact } from "../redact";
import { COUNTS } from "../time";

/** The sentence every prompt vx delivers ends with (CMD-DISPATCH-05); it delimits the final turn. */
export const TRAILER = "do not use it for an ordinary status update.";

/** Still-running evidence; `text` is the `<evidence>` wording of SEN-13. */
export type Evidence = { kind: "spinner" | "tool" | "summary"; text: string };

/** The template line of CMD-DISPATCH-05, which the pane echoes back with the prompt. */
export const DECISION_PLACEHOLDER = "<a one-line summary of the question and any options>";

/** How many non-blank lines at the bottom of the window are searched for evidence (SEN-12). */
const EVIDENCE_LINES = COUNTS.evidenceLines;

// A narrow pane wraps the echoed prompt, so the trailer may be split over lines (with the echo's
// indentation, and a frame's right border where the harness draws one: Copilot CLI's `┃` in a
// herdr pane). Such an occurrence is still the echo, so it must still delimit the window;
// otherwise a wrapped template line (`needs-decision: <a one-line summary of the question and any`)
// would look like a real question.
const TRAILER_RE = new RegExp(
  TRAILER.split(" ")
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("(?:\\s|[\\u2500-\\u257f])+"),
  "g",
);

/**
 * SEN-16.1: the text after the last occurrence of the trailer (case-sensitive; whitespace between
 * its words may include a line break), or the whole transcript when the trailer scrolled out.
 */
export function finalTurnWindow(transcript: string): string {
  let end = -1;
  TRAILER_RE.lastIndex = 0;
  for (let m = TRAILER_RE.exec(transcript); m !== null; m = TRAILER_RE.exec(transcript)) {
    end = m.index + m[0].length;
  }
  return end === -1 ? transcript : transcript.slice(end);
}

// SEN-12a: a spinner glyph first, then somewhere `(` + elapsed time (`<n>h`, `<n>m`, `<n>s` in that
// order, one to three of them) + `)`, a space, `·` or `•`. A unit is glued to its number, so
// `(12 s)` is not a timer.
const SPINNER_START_RE = /^\s*[·✢✳✶✻✽*•◐◓◑◒\u2800-\u28FF]/u;
const ELAPSED_RE = /\([ \t]*(?:\d+h(?:[ \t]*\d+m)?(?:[ \t]*\d+s)?|\d+m(?:[ \t]*\d+s)?|\d+s)(?:\)| |·|•)/u;
// SEN-12b: tool-output gutter glyphs, then `Running…` / `Running...`.
const TOOL_RE = /^[\s⎿│└├─⏺●•]*Running(?:…|\.\.\.)/u;
// SEN-12c: a positive integer, one to three words, `still running`. The integer stands alone
// (`v2 shells` and `1.2k` do not count) and zero, however written, is not evidence.
// A word does not start with a digit, so `3 done, 1 shell still running` quotes `1 shell ...`.
const SUMMARY_RE = /(?<![A-Za-z0-9_.])0*[1-9]\d*(?:\s+[^\s\d]\S*){1,3}?\s+still running/i;

/** The last `n` lines of `text` that contain something other than whitespace, bottom first. */
function lastNonBlankLines(text: string, n: number): string[] {
  const out: string[] = [];
  let end = text.length;
  while (end > 0 && out.length < n) {
    const start = text.lastIndexOf("\n", end - 1);
    const line = text.slice(start + 1, end);
    if (line.trim() !== "") out.push(line);
    end = start === -1 ? 0 : start;
  }
  return out;
}

/** True for a SEN-12a spinner line with a timer. */
function isSpinnerLine(line: string): boolean {
  return SPINNER_START_RE.test(line) && ELAPSED_RE.test(line);
}

/** True for a SEN-12b `Running…` tool line. */
function isToolLine(line: string): boolean {
  return TOOL_RE.test(line);
}

/**
 * SEN-12 a/b: a turn still in progress, looked for in the last 20 non-blank lines of the window.
 * The bottom-most evidence line wins; on one line a spinner beats a tool line.
 */
export function turnInProgress(window: string): Evidence | null {
  for (const line of lastNonBlankLines(window, EVIDENCE_LINES)) {
    if (isSpinnerLine(line)) return { kind: "spinner", text: "a spinner line with a timer" };
    if (isToolLine(line)) return { kind: "tool", text: 'a "Running..." tool line' };
  }
  return null;
}

/**
 * SEN-12 c: background work still running (`2 background tasks still running`), looked for in the
 * last 20 non-blank lines of the window. `text` is the matched summary in double quotes.
 */
export function backgroundWork(window: string): Evidence | null {
  for (const line of lastNonBlankLines(window, EVIDENCE_LINES)) {
    const m = SUMMARY_RE.exec(line);
    if (m) return { kind: "summary", text: `"${m[0]}"` };
  }
  return null;
}

// SEN-16.2: leading whitespace, marker glyphs and Markdown emphasis, in any mix.
const CANDIDATE_PREFIX_RE = /^(?:\s|[⏺●•\-*>│`]|__)*/u;
const NEEDS_DECISION = "needs-decision:";
// Trailing emphasis; a single `*` is included so `*needs-decision: x*` (italics) reads `x`. A
// frame's right border (box drawing) ends a line too.
const TRAILING_EMPHASIS_RE = /(?:\s|\*|`|__|[\u2500-\u257f])+$/u;
const ONE_ANGLE_GROUP_RE = /^<[^<>]*>$/;
const NOTHING_VALUES = new Set(["none", "n/a", "na", "nothing", "no", "nil", "null", "-", "—"]);
const LETTER_OR_DIGIT_RE = /[\p{L}\p{N}]/u;

// Emphasis glued to the colon closes a bold or code label: `**needs-decision:** question`.
const LABEL_CLOSE_RE = /^(?:\*|`|__)+/;

/** The question of a needs-decision candidate line, or null when the line is not a candidate. */
function candidateQuestion(line: string): string | null {
  const rest = line.replace(CANDIDATE_PREFIX_RE, "");
  if (rest.slice(0, NEEDS_DECISION.length).toLowerCase() !== NEEDS_DECISION) return null;
  return rest.slice(NEEDS_DECISION.length).replace(LABEL_CLOSE_RE, "").trim().replace(TRAILING_EMPHASIS_RE, "");
}

function collapse(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function skipped(question: string, answered?: { question: string; answered: boolean }): boolean {
  if (question === "" || question === DECISION_PLACEHOLDER) return true;
  if (ONE_ANGLE_GROUP_RE.test(question)) return true;
  const lower = question.toLowerCase();
  // "Ignoring a trailing `.`": a run of them too, so `none...` is still nothing.
  if (NOTHING_VALUES.has(lower.replace(/\.+$/, ""))) return true;
  if (!LETTER_OR_DIGIT_RE.test(question)) return true;
  if (answered?.answered) {
    // The stored question was redacted (RED-01) while this one is raw, so compare both forms.
    const stored = collapse(answered.question);
    if (stored === collapse(question) || stored === collapse(redact(question))) return true;
  }
  return false;
}

/**
 * SEN-16 steps 2-3: the question of the last surviving `needs-decision:` line in the window, or null.
 * `answered` is the task's current decision; its question is skipped once answered or dismissed, so
 * scrollback never re-blocks the task on a question already handled.
 */
export function needsDecision(window: string, answered?: { question: string; answered: boolean }): string | null {
  // Cheap exit: almost every idle pane has no candidate at all.
  if (!/needs-decision:/i.test(window)) return null;
  const lines = window.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const question = candidateQuestion(lines[i]);
    if (question !== null && !skipped(question, answered)) return question;
  }
  return null;
}
