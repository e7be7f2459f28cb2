/**
 * Secrets inside base64 (`base64 .env`, a Kubernetes Secret): a run replaced whole when its decoded text
 * holds a secret. Equal-width wrapped lines are joined first: a decoded line may straddle two.
 */
import { SECRET } from "./placeholders";

const LONG_RUN_RE = /[A-Za-z0-9+/]{24}/g;
const RUN_RE = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const WHOLE_RE = /^([\s│┃|>]*)([A-Za-z0-9+/]{16,}={0,2})\s*$/;
// The last line of a wrapped run may be short; `base64` pads it to a multiple of 4.
const LAST_RE = /^([\s│┃|>]*)([A-Za-z0-9+/]+={0,2})\s*$/;

/** Undefined unless base64 of mostly printable text. */
function decodeText(b64: string): string | undefined {
  const body = b64.replace(/=+$/, "");
  if (body.length % 4 === 1) return undefined;
  const bytes = Buffer.from(body, "base64");
  if (bytes.length < 12) return undefined;
  let printable = 0;
  for (const b of bytes) if ((b >= 0x20 && b < 0x7f) || b === 9 || b === 10 || b === 13) printable++;
  return printable >= bytes.length * 0.95 ? bytes.toString("latin1") : undefined;
}

/** In place. A group of whole-line runs is decoded as one. */
export function replaceEncoded(text: string, lines: string[], holdsSecret: (text: string) => boolean): void {
  const candidates: number[] = [];
  LONG_RUN_RE.lastIndex = 0;
  for (let m = LONG_RUN_RE.exec(text), i = 0, at = 0; m !== null; m = LONG_RUN_RE.exec(text)) {
    while (i + 1 < lines.length && at + lines[i].length < m.index) at += lines[i++].length + 1;
    candidates.push(i);
    LONG_RUN_RE.lastIndex = at + lines[i].length + 1; // one hit per line is enough
  }
  LONG_RUN_RE.lastIndex = 0;
  for (let c = 0; c < candidates.length; c++) {
    const i = candidates[c];
    const line = lines[i];
    const whole = WHOLE_RE.exec(line);
    if (whole) {
      // Equal widths (a multiple of 4); the last may be shorter.
      const width = whole[2].length;
      let j = i + 1;
      const parts = [whole[2]];
      while (width % 4 === 0 && j < lines.length && parts[parts.length - 1].length === width) {
        const next = LAST_RE.exec(lines[j]);
        if (next === null || next[2].length > width || (next[2].length < width && next[2].length % 4 !== 0)) break;
        parts.push(next[2]);
        j++;
      }
      if (parts.length > 1) {
        const decoded = decodeText(parts.join(""));
        if (decoded !== undefined && holdsSecret(decoded)) {
          for (let k = i; k < j; k++) lines[k] = (LAST_RE.exec(lines[k])?.[1] ?? "") + SECRET + (lines[k].endsWith("\r") ? "\r" : "");
        }
        while (c + 1 < candidates.length && candidates[c + 1] < j) c++;
        continue;
      }
    }
    RUN_RE.lastIndex = 0;
    lines[i] = line.replace(RUN_RE, (run) => {
      const decoded = decodeText(run);
      return decoded !== undefined && holdsSecret(decoded) ? SECRET : run;
    });
  }
}
