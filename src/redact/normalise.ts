/**
 * The copy of a line the rules read (RED-06): invisible characters dropped and JSON escapes undone, so
 * neither hides a secret. It maps each character back, so replacements land in the line itself.
 */
import { SECRET, type Span, spliceSecrets } from "./placeholders";

// Cf and Default_Ignorable_Code_Point, written out (a unit test checks it against Unicode): a plain class
// is searched faster than a property escape.
const INVISIBLE_BMP =
  "\\u00AD\\u034F\\u0600-\\u0605\\u061C\\u06DD\\u070F\\u0890\\u0891\\u08E2\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFFB";
const INVISIBLE_ASTRAL = "\\uD804[\\uDCBD\\uDCCD]|\\uD80D[\\uDC30-\\uDC3F]|\\uD82F[\\uDCA0-\\uDCA3]|\\uD834[\\uDD73-\\uDD7A]|[\\uDB40-\\uDB43][\\uDC00-\\uDFFF]";
const INVISIBLE = `[${INVISIBLE_BMP}]|${INVISIBLE_ASTRAL}`;
// However many times the text was encoded.
const ESCAPE = '(?<!\\\\)\\\\+(?:[/"]|u[0-9A-Fa-f]{4})';
// An astral character by its first half.
const INVISIBLE_HINT_RE = new RegExp(`[${INVISIBLE_BMP}\\uD804\\uD80D\\uD82F\\uD834\\uDB40-\\uDB43]`);
const ESCAPE_RE = new RegExp(ESCAPE);
const INVISIBLE_HINT_G = new RegExp(INVISIBLE_HINT_RE.source, "g");
const ESCAPE_G = new RegExp(ESCAPE, "g");
const PIECE_RE = new RegExp(`(?:${INVISIBLE})+|${ESCAPE}`, "g");
/** Exported for the test. */
export const INVISIBLE_RE = new RegExp(`^(?:${INVISIBLE})$`);

/** `at[k]`: where character k of `text` starts in the line; `at[text.length]` is its length. */
type Normalised = { text: string; at: Int32Array };

function needsNormalising(text: string): boolean {
  return INVISIBLE_HINT_RE.test(text) || (text.includes("\\") && ESCAPE_RE.test(text));
}

function linesMatching(re: RegExp, text: string, starts: readonly number[], hits: Set<number>): void {
  re.lastIndex = 0;
  let line = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    while (line + 1 < starts.length && starts[line + 1] <= m.index) line++;
    hits.add(line);
    if (line + 1 >= starts.length) break;
    re.lastIndex = starts[line + 1]; // one hit per line is enough
  }
  re.lastIndex = 0;
}

/** By line index; undefined when none needs one. A clean capture costs two searches. */
export function normaliseLines(text: string, lines: readonly string[]): (Normalised | undefined)[] | undefined {
  const invisible = INVISIBLE_HINT_RE.test(text);
  const escaped = text.includes("\\") && ESCAPE_RE.test(text);
  if (!invisible && !escaped) return undefined;
  const starts: number[] = [];
  for (let i = 0, at = 0; i < lines.length; i++) {
    starts.push(at);
    at += lines[i].length + 1;
  }
  const hits = new Set<number>();
  if (invisible) linesMatching(INVISIBLE_HINT_G, text, starts, hits);
  if (escaped) linesMatching(ESCAPE_G, text, starts, hits);
  const copies: (Normalised | undefined)[] = [];
  let any = false;
  for (const i of hits) {
    copies[i] = normaliseLine(lines[i]);
    any ||= copies[i] !== undefined;
  }
  return any ? copies : undefined;
}

/** "" for an invisible one; undefined to keep it as written. */
function unescaped(piece: string): string | undefined {
  const c = piece[piece.length - 1];
  if (c === "/" || c === '"') return c;
  const code = Number.parseInt(piece.slice(-4), 16);
  // A control character would change the lines; a lone surrogate is no character.
  if (code < 0x20 || (code >= 0x7f && code < 0xa0) || (code >= 0xd800 && code < 0xe000)) return undefined;
  const ch = String.fromCharCode(code);
  return INVISIBLE_RE.test(ch) ? "" : ch;
}

/** Undefined when it is the line itself. */
export function normaliseLine(line: string): Normalised | undefined {
  if (!needsNormalising(line)) return undefined;
  let text = "";
  const at: number[] = [];
  let from = 0;
  const copy = (to: number) => {
    for (let i = from; i < to; i++) at.push(i);
    text += line.slice(from, to);
    from = to;
  };
  PIECE_RE.lastIndex = 0;
  for (let m = PIECE_RE.exec(line); m !== null; m = PIECE_RE.exec(line)) {
    copy(m.index);
    const ch = m[0][0] === "\\" ? unescaped(m[0]) : "";
    if (ch === undefined) {
      copy(m.index + m[0].length);
      continue;
    }
    if (ch !== "") {
      at.push(m.index);
      text += ch;
    }
    from = m.index + m[0].length;
  }
  copy(line.length);
  at.push(line.length);
  return text === line ? undefined : { text, at: Int32Array.from(at) };
}

/** Spans that turn `copy` into `redacted` exactly; undefined when none do (a whole-line drop, a collapsed block). */
function spansIn(copy: string, redacted: string): Span[] | undefined {
  const pieces = redacted.split(SECRET);
  if (!copy.startsWith(pieces[0])) return undefined;
  const spans: Span[] = [];
  let i = pieces[0].length;
  for (let k = 1; k < pieces.length; k++) {
    const next = pieces[k];
    let end: number;
    if (copy.startsWith(SECRET, i) && (k === pieces.length - 1 ? copy.length - i - SECRET.length === next.length : copy.startsWith(next, i + SECRET.length))) {
      end = i + SECRET.length; // already a placeholder
    } else {
      end = k === pieces.length - 1 ? copy.length - next.length : next === "" ? -1 : copy.indexOf(next, i + 1);
      if (end <= i) return undefined;
      spans.push([i, end]);
    }
    if (!copy.startsWith(next, end)) return undefined;
    i = end + next.length;
  }
  return i === copy.length && spliceSecrets(copy, spans) === redacted ? spans : undefined;
}

/** Replacements in the copy carried to `line`; anything else (a dropped line, a collapsed block) taken as written. */
export function mapBack(line: string, n: Normalised, redacted: string): string {
  if (redacted === n.text) return line;
  const spans = spansIn(n.text, redacted);
  if (spans === undefined) return redacted;
  return spliceSecrets(
    line,
    spans.map(([a, b]): Span => [n.at[a], n.at[b]]),
  );
}
