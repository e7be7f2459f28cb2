/**
 * Parsing a blocked soldier's question out of its pane (SPEC CMD-DECIDE-02): Claude Code's
 * AskUserQuestion dialog first, a prose fallback second, and mapping an answer onto an option.
 * Works on raw pane text; callers redact before storing anything (RED-01).
 */

/** A question and its options, in the order they are numbered on screen. */
export type ParsedQuestion = { question: string; options: string[] };

/** How an answer is delivered: one option's digit, or a plain text prompt. */
export type ResolvedAnswer = { kind: "option"; number: number } | { kind: "text" };

// The spec's footer is `Enter to select · ↑/↓ to navigate · Esc to cancel`; Claude Code 2.1 renders
// the middle as `Tab/Arrow keys to navigate`, so only the navigation keys are left open.
const FOOTER_RE = /Enter to select\s*·[^·]*\bto navigate\s*·\s*Esc to cancel/;
// A single question shows a `☐ <chip>` header; several questions (or multi-select) show a tab bar
// `←  ☐ Color  ☐ Size  ✔ Submit  →` in the same place.
const HEADER_RE = /^\s*(?:☐|←.*[☐☒])/u;
// An option row, the first one possibly carrying the selection cursor.
const MODAL_OPTION_RE = /^\s*(?:[❯›>]\s*)?(\d+)\.\s+(\S.*)$/u;
// Side-by-side previews draw a box to the right of each option row.
const PREVIEW_PANEL_RE = /\s{2,}[\u2500-\u257F].*$/u;
// Multi-select rows carry a checkbox (`[ ]`, `[✔]`); answered rows may end with a check mark.
const CHECKBOX_RE = /^\[[^\]]?\]\s+/u;
const CHECK_MARK_RE = /\s+[✔✓]$/u;
// A line made only of box-drawing characters: separators inside and around dialogs.
const RULE_RE = /^[\s\u2500-\u257F]+$/u;
// Lines the prose fallback must never mistake for the question: dialog key hints.
const KEY_HINT_RE = /Esc to cancel|Enter to select/;
// Prose options: `-`, `*`, `•` or `<n>.`/`<n>)`/`<n>:` then whitespace; a selection cursor before a
// numbered option (`❯ 1. Yes` in a permission prompt) is tolerated.
const PROSE_OPTION_RE = /^\s*(?:[-*•]|(?:[❯›>]\s*)?\d+[.):])\s+(\S.*)$/u;
// Claude Code prefixes assistant text with a bullet glyph; it is not part of the question.
const MESSAGE_GLYPH_RE = /^[⏺●]\s+/u;
const TYPE_SOMETHING_RE = /^type something\.?$/i;

function splitLines(text: string): string[] {
  return text.split("\n").map((l) => l.replace(/\s+$/, ""));
}

function cleanOptionLabel(raw: string): string {
  return raw.replace(PREVIEW_PANEL_RE, "").trim().replace(CHECKBOX_RE, "").replace(CHECK_MARK_RE, "").trim();
}

/**
 * Parses a Claude Code AskUserQuestion dialog from the rendered (`--source visible`) pane: footer,
 * `☐` header, question, numbered options. All options are returned, the harness-injected
 * `Type something.` and "Chat about this" included, since callers answer with an option's number.
 * Returns null when the footer, the header, the question or the options are missing.
 */
export function parseModal(visible: string): ParsedQuestion | null {
  const lines = splitLines(visible);
  let footer = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (FOOTER_RE.test(lines[i])) {
      footer = i;
      break;
    }
  }
  if (footer === -1) return null;
  let header = -1;
  for (let i = footer - 1; i >= 0; i--) {
    if (HEADER_RE.test(lines[i])) {
      header = i;
      break;
    }
  }
  if (header === -1) return null;

  const questionLines: string[] = [];
  const options: string[] = [];
  let column = -1;
  for (let i = header + 1; i < footer; i++) {
    const m = MODAL_OPTION_RE.exec(lines[i]);
    // Numbering runs 1, 2, 3... with the numbers in one column: descriptions sit deeper, so one that
    // starts with `2. ` is still not an option.
    if (m && Number(m[1]) === options.length + 1) {
      const at = lines[i].indexOf(m[1]);
      if (column === -1 || at === column) {
        column = at;
        options.push(cleanOptionLabel(m[2]));
        continue;
      }
    }
    if (options.length > 0) continue; // descriptions, separators, `Next`/`Submit` rows
    const text = lines[i].trim();
    if (text !== "" && !RULE_RE.test(text)) questionLines.push(text);
  }
  const question = questionLines.join(" ");
  if (question === "" || options.length === 0) return null;
  return { question, options };
}

/**
 * The prose fallback: the last paragraph is the question, and bulleted or numbered lines are the
 * options (marker stripped). When the last paragraph holds only options, the question is the
 * paragraph before it. Trailing dialog chrome (key hints, separators) is ignored.
 */
export function parseProse(transcript: string): ParsedQuestion {
  const lines = splitLines(transcript).map((l) => (RULE_RE.test(l) ? "" : l));
  let end = lines.length;
  while (end > 0 && (lines[end - 1].trim() === "" || KEY_HINT_RE.test(lines[end - 1]))) end--;

  const paragraphs: string[][] = [];
  let current: string[] = [];
  for (let i = 0; i < end; i++) {
    if (lines[i].trim() === "") {
      if (current.length > 0) paragraphs.push(current);
      current = [];
    } else {
      current.push(lines[i]);
    }
  }
  if (current.length > 0) paragraphs.push(current);

  let q = paragraphs.length - 1;
  while (q >= 0 && paragraphs[q].every((l) => PROSE_OPTION_RE.test(l))) q--;
  const questionLines: string[] = [];
  const options: string[] = [];
  for (let p = Math.max(q, 0); p < paragraphs.length; p++) {
    for (const line of paragraphs[p]) {
      const m = PROSE_OPTION_RE.exec(line);
      if (m) options.push(m[1].trim());
      else questionLines.push(line.trim().replace(MESSAGE_GLYPH_RE, ""));
    }
  }
  return { question: questionLines.join(" ").trim(), options };
}

/**
 * Maps an answer onto an option (CMD-DECIDE-02): exact option text (case-sensitive first, then
 * case-insensitive) or a 1-based number in range. The `Type something.` option, or no match at all,
 * means the answer goes to the soldier as a text prompt.
 */
export function resolveAnswer(options: string[], answer: string): ResolvedAnswer {
  const a = answer.trim();
  if (a === "") return { kind: "text" };
  let index = options.findIndex((o) => o.trim() === a);
  if (index === -1) {
    const lower = a.toLowerCase();
    index = options.findIndex((o) => o.trim().toLowerCase() === lower);
  }
  if (index === -1 && /^\d+$/.test(a)) {
    const n = Number(a);
    if (n >= 1 && n <= options.length) index = n - 1;
  }
  if (index === -1 || TYPE_SOMETHING_RE.test(options[index].trim())) return { kind: "text" };
  return { kind: "option", number: index + 1 };
}
