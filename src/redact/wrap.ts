/**
 * A token's tail on the next line (hard-wrapped at the right edge, or after a trailing `\`), taken when
 * the line above ends redacted and the tail is plausible. If neither half is recognised, the words
 * either side of the cut are joined and checked for a provider token across it.
 */
import { SECRET, SENSITIVE_LINE } from "./placeholders";
import { opSecretKeyRE, tokenRE } from "./tokens";

// A head followed by `=`, `:`, `$`, `(` is a name being assigned or code (`HF_TOKEN=$X`).
const HEAD_RE = /^[A-Za-z0-9_+/.-]+={0,2}(?=$|[\s"'`,;)\]}@&?#|<>\\])/;

/** `[A-Za-z0-9_+/=.-]` */
function tokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 43 || c === 47 || c === 61 || c === 46 || c === 45;
}

function runBefore(s: string, end: number): string {
  let start = end;
  while (start > 0 && tokenChar(s.charCodeAt(start - 1))) start--;
  return s.slice(start, end);
}

/** Random text has a lower-to-upper hump or a digit beside a lower-case letter; words do not (`1Password`). */
function tailLike(head: string): boolean {
  return head.length >= 2 && (/[a-z][A-Z]|[A-Za-z]\d|\d[a-z]|[_+/=]/.test(head) || head.length >= 20);
}

/** Random enough that no ordinary line starts with it. */
function randomLike(head: string): boolean {
  return head.length >= 12 && /\d.*\d/.test(head) && /[a-z]/.test(head) && /[A-Z]/.test(head) && tailLike(head);
}

/** In place; `src[k]` is the index in `raw` that `out[k]` came from (a key block collapses several). */
export function replaceContinuations(raw: readonly string[], out: string[], src: readonly number[]): void {
  const bare = (l: string) => (l.charCodeAt(l.length - 1) === 13 ? l.slice(0, -1) : l);
  const width = (l: string) => (l.charCodeAt(l.length - 1) === 13 ? l.length - 1 : l.length);
  let maxLen = 0;
  for (const l of raw) maxLen = Math.max(maxLen, width(l));
  for (let k = 0; k + 1 < out.length; k++) {
    if (src[k + 1] !== src[k] + 1 || !tokenChar(raw[src[k + 1]].charCodeAt(0))) continue;
    const rawLine = raw[src[k]];
    const n = width(rawLine);
    const last = rawLine.charCodeAt(n - 1);
    const backslash = last === 92 && tokenChar(rawLine.charCodeAt(n - 2));
    if (!backslash && !tokenChar(last)) continue;
    const line = bare(rawLine);
    const next = bare(raw[src[k + 1]]);
    const head = HEAD_RE.exec(next)?.[0];
    if (head === undefined) continue;
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
    if (!atEdge && !backslash && !tailLike(head)) continue;
    // Neither half recognised alone.
    const tail = runBefore(o, o.length - (backslash ? 1 : 0));
    if (tail === "") continue;
    const at = tokenAcross(tail + head, tail.length);
    if (at >= 0) take(o.length - (backslash ? 1 : 0) - (tail.length - at));
  }
}

/** Start of a token spanning `cut`, or -1. */
function tokenAcross(joined: string, cut: number): number {
  for (const re of [tokenRE(), opSecretKeyRE()]) {
    re.lastIndex = 0;
    for (let m = re.exec(joined); m !== null; m = re.exec(joined)) {
      if (m.index < cut && m.index + m[0].length > cut) {
        re.lastIndex = 0;
        return m.index;
      }
    }
    re.lastIndex = 0;
  }
  return -1;
}
