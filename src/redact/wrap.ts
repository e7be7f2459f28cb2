/**
 * The tail of a token on the next line: the terminal hard-wrapped it at the right edge, or the shell
 * continued the word after a trailing `\`. The continuation starts at column 0 with token characters.
 * It is taken when the line above ends in a redacted token (or was dropped whole) and either the
 * line above ended in `\`, or it reaches the right edge and the continuation does not read as a
 * word, or the continuation looks random on its own. A token cut so early that neither half is
 * recognised is found by joining the last word above with the first word below.
 */
import { SECRET, SENSITIVE_LINE } from "./placeholders";
import { TOKEN_RE } from "./tokens";

// Padding `=` only at the end; a head followed by `=` or `:` is a name being assigned (`HF_TOKEN=`).
const HEAD_RE = /^[A-Za-z0-9_+/.-]+={0,2}(?![A-Za-z0-9_+/.=:-])/;
const TAIL_RE = /[A-Za-z0-9_+/=.-]+\\?$/;
const TOKEN_CHAR_RE = /[A-Za-z0-9_+/=.-]/;

/** A continuation next to the right edge: anything but a plain word (`git`, `Done`). */
function tailLike(head: string): boolean {
  return head.length >= 2 && (/\d/.test(head) || /[A-Z]/.test(head.slice(1)) || /[_+/=]/.test(head) || head.length >= 20);
}

/** A continuation anywhere: random enough that no ordinary line starts with it. */
function randomLike(head: string): boolean {
  return head.length >= 8 && /\d/.test(head) && ((/[a-z]/.test(head) && /[A-Z]/.test(head)) || head.length >= 24);
}

/**
 * Redacts continuations in `out` (the redacted lines, in place). `src[k]` is the index in `raw` (the
 * lines before redaction) that `out[k]` came from; a key block collapses several into one.
 */
export function replaceContinuations(raw: readonly string[], out: string[], src: readonly number[]): void {
  const bare = (l: string) => (l.endsWith("\r") ? l.slice(0, -1) : l);
  let maxLen = 0;
  for (const l of raw) if (l.length > maxLen) maxLen = bare(l).length > maxLen ? bare(l).length : maxLen;
  for (let k = 0; k + 1 < out.length; k++) {
    if (src[k + 1] !== src[k] + 1) continue;
    const next = bare(raw[src[k + 1]]);
    const head = HEAD_RE.exec(next)?.[0];
    if (head === undefined) continue;
    const line = bare(raw[src[k]]);
    const backslash = line.endsWith("\\") && TOKEN_CHAR_RE.test(line[line.length - 2] ?? "");
    if (!backslash && !TOKEN_CHAR_RE.test(line[line.length - 1] ?? "")) continue;
    const cr = out[k].endsWith("\r") ? "\r" : "";
    const o = cr ? out[k].slice(0, -1) : out[k];
    const atEdge = maxLen >= 20 && line.length >= maxLen;
    const take = (from: number) => {
      out[k + 1] = SECRET + next.slice(head.length) + (raw[src[k + 1]].endsWith("\r") ? "\r" : "");
      if (from >= 0) out[k] = o.slice(0, from) + SECRET + (backslash ? "\\" : "") + cr;
    };
    if (o === SENSITIVE_LINE || o.endsWith(SECRET) || o.endsWith(`${SECRET}\\`)) {
      if (backslash || (atEdge && tailLike(head)) || randomLike(head)) take(-1);
      continue;
    }
    if (!atEdge && !backslash) continue;
    // Neither half recognised alone: join the last word above and the first word below.
    const tail = TAIL_RE.exec(o)?.[0].replace(/\\$/, "");
    if (tail === undefined) continue;
    const joined = tail + head;
    TOKEN_RE.lastIndex = 0;
    for (let m = TOKEN_RE.exec(joined); m !== null; m = TOKEN_RE.exec(joined)) {
      if (m.index < tail.length && m.index + m[0].length > tail.length) {
        take(o.length - (backslash ? 1 : 0) - (tail.length - m.index));
        break;
      }
    }
    TOKEN_RE.lastIndex = 0;
  }
}
