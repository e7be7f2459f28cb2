/** Pure pane-text analysis (SEN-11, SEN-12, SEN-13, SEN-16), on raw, unredacted text (RED-01). */

import { redact } from "../redact";
import { COUNTS } from "../time";

/** CMD-DISPATCH-05: it delimits the final turn. */
export const TRAILER = "do not use it for an ordinary status update.";

/** `text` is SEN-13's `<evidence>` wording. */
export type Evidence = { kind: "spinner" | "tool" | "summary"; text: string };

/** CMD-DISPATCH-05's template, echoed back with the prompt. */
export const DECISION_PLACEHOLDER = "<a one-line summary of the question and any options>";

/** SEN-12. */
const EVIDENCE_LINES = COUNTS.evidenceLines;

// A narrow pane wraps the echo, with indentation or a frame's border between words; it must still
// delimit the window, or a wrapped template line would look like a real question.
const TRAILER_RE = new RegExp(
  TRAILER.split(" ")
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("(?:\\s|[\\u2500-\\u257f])+"),
  "g",
);

/** SEN-16.1: the whole transcript when the trailer scrolled out. */
export function finalTurnWindow(transcript: string): string {
  let end = -1;
  TRAILER_RE.lastIndex = 0;
  for (let m = TRAILER_RE.exec(transcript); m !== null; m = TRAILER_RE.exec(transcript)) {
    end = m.index + m[0].length;
  }
  return end === -1 ? transcript : transcript.slice(end);
}

// SEN-12a. A unit is glued to its number, so `(12 s)` is not a timer.
const SPINNER_START_RE = /^\s*[·✢✳✶✻✽*•◐◓◑◒\u2800-\u28FF]/u;
const ELAPSED_RE = /\([ \t]*(?:\d+h(?:[ \t]*\d+m)?(?:[ \t]*\d+s)?|\d+m(?:[ \t]*\d+s)?|\d+s)(?:\)| |·|•)/u;
// SEN-12b.
const TOOL_RE = /^[\s⎿│└├─⏺●•]*Running(?:…|\.\.\.)/u;
// SEN-12c: the integer stands alone (not `v2`, `1.2k`), zero is no evidence; words start with no digit.
const SUMMARY_RE = /(?<![A-Za-z0-9_.])0*[1-9]\d*(?:\s+[^\s\d]\S*){1,3}?\s+still running/i;

/** Bottom first. */
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

function isSpinnerLine(line: string): boolean {
  return SPINNER_START_RE.test(line) && ELAPSED_RE.test(line);
}

function isToolLine(line: string): boolean {
  return TOOL_RE.test(line);
}

/** SEN-12 a/b: the bottom-most evidence wins; on one line a spinner beats a tool line. */
export function turnInProgress(window: string): Evidence | null {
  for (const line of lastNonBlankLines(window, EVIDENCE_LINES)) {
    if (isSpinnerLine(line)) return { kind: "spinner", text: "a spinner line with a timer" };
    if (isToolLine(line)) return { kind: "tool", text: 'a "Running..." tool line' };
  }
  return null;
}

/** SEN-12 c. */
export function backgroundWork(window: string): Evidence | null {
  for (const line of lastNonBlankLines(window, EVIDENCE_LINES)) {
    const m = SUMMARY_RE.exec(line);
    if (m) return { kind: "summary", text: `"${m[0]}"` };
  }
  return null;
}

// SEN-16.2.
const CANDIDATE_PREFIX_RE = /^(?:\s|[⏺●•\-*>│`]|__)*/u;
const NEEDS_DECISION = "needs-decision:";
// A single `*` so italics read `x`; a frame's right border too.
const TRAILING_EMPHASIS_RE = /(?:\s|\*|`|__|[\u2500-\u257f])+$/u;
const ONE_ANGLE_GROUP_RE = /^<[^<>]*>$/;
const NOTHING_VALUES = new Set(["none", "n/a", "na", "nothing", "no", "nil", "null", "-", "—"]);
const LETTER_OR_DIGIT_RE = /[\p{L}\p{N}]/u;

// Closes a bold or code label: `**needs-decision:** question`.
const LABEL_CLOSE_RE = /^(?:\*|`|__)+/;

/** Null when the line is not a candidate. */
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
  // A run of trailing dots too: `none...` is still nothing.
  if (NOTHING_VALUES.has(lower.replace(/\.+$/, ""))) return true;
  if (!LETTER_OR_DIGIT_RE.test(question)) return true;
  if (answered?.answered) {
    // The stored question was redacted (RED-01), this one is raw.
    const stored = collapse(answered.question);
    if (stored === collapse(question) || stored === collapse(redact(question))) return true;
  }
  return false;
}

/** SEN-16 steps 2-3. An answered question is skipped, so scrollback never re-blocks the task on it. */
export function needsDecision(window: string, answered?: { question: string; answered: boolean }): string | null {
  // Almost every idle pane has no candidate.
  if (!/needs-decision:/i.test(window)) return null;
  const lines = window.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const question = candidateQuestion(lines[i]);
    if (question !== null && !skipped(question, answered)) return question;
  }
  return null;
}
