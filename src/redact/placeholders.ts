/** The three placeholders redaction writes (SPEC section 15); each is a fixed point of `redact`. */

/** Replacement for a whole line that looks like it carries a credential (RED-02). */
export const SENSITIVE_LINE = "[redacted sensitive line]";
/** Replacement for a whole private key block (RED-03). */
export const PRIVATE_KEY_BLOCK = "[redacted private key block]";
/** Replacement for one in-line token, URL credential or assigned value (RED-04). */
export const SECRET = "[redacted-secret]";

/** A [start, end) range of a line. */
export type Span = [start: number, end: number];

/** `s` with each span (in order, not overlapping) replaced by SECRET, built in one pass. */
export function spliceSecrets(s: string, spans: readonly Span[]): string {
  if (spans.length === 0) return s;
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    out += s.slice(at, start) + SECRET;
    at = end;
  }
  return out + s.slice(at);
}
