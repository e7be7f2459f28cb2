// A blocked soldier's question from its pane (CMD-DECIDE-02): Claude Code's AskUserQuestion dialog, else prose. Raw pane text:
// callers redact before storing anything (RED-01).

/** A question and its options, in the order they are numbered on screen. */
export type ParsedQuestion = { question: string; options: string[] };

/** How an answer is delivered: one option's digit, or a plain text prompt. */
export type ResolvedAnswer = { kind: "option"; number: number } | { kind: "text" };

// The navigation keys are left open: Claude Code's wording differs from the spec's `↑/↓`.
const FOOTER_RE = /Enter to select\s*·[^·]*\bto navigate\s*·\s*Esc to cancel/;
// A `☐` chip header, or the tab bar of several questions.
const HEADER_RE = /^\s*(?:☐|←.*[☐☒])/u;
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
// Prose options: `-`, `*`, `•` or `<n>.`/`<n>)`/`<n>:`; a cursor before a numbered one (`❯ 1. Yes`) is tolerated.
const PROSE_OPTION_RE = /^\s*(?:[-*•]|(?:[❯›>]\s*)?\d+[.):])\s+(\S.*)$/u;
// An assistant-text bullet glyph is not part of the question.
const MESSAGE_GLYPH_RE = /^[⏺●]\s+/u;
const TYPE_SOMETHING_RE = /^type something\.?$/i;

function splitLines(text: string): string[] {
  return text.split("\n").map((l) => l.replace(/\s+$/, ""));
}

function cleanOptionLabel(raw: string): string {
  return raw.replace(PREVIEW_PANEL_RE, "").trim().replace(CHECKBOX_RE, "").replace(CHECK_MARK_RE, "").trim();
}

/** The dialog in the visible pane; every option kept (injected ones too), since answers go by number; null when a part is missing. */
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
    // Numbers run 1, 2, 3 in one column: a deeper description starting `2. ` is no option.
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

/** The last paragraph is the question, its bulleted or numbered lines the options (an options-only paragraph takes the one before). */
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

/** CMD-DECIDE-02: exact text (case-sensitive, then not) or a 1-based number; `Type something.` or no match goes as a text prompt. */
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
