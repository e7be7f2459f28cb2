/** The three placeholders redaction writes (SPEC section 15); each is a fixed point of `redact`. */

/** RED-02. */
export const SENSITIVE_LINE = "[redacted sensitive line]";
/** RED-03. */
export const PRIVATE_KEY_BLOCK = "[redacted private key block]";
/** RED-04. */
export const SECRET = "[redacted-secret]";

export type Span = [start: number, end: number];

/** Spans in order, not overlapping. */
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
