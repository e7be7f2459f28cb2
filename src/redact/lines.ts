/** Whole-line drops (RED-02): vendor and compound credential words anywhere; bare words before `=` or `:` unless code follows (values.ts). */
import { envAssignment, isCodeValue, operatorAt } from "./values";

// Tested against the lower-cased line, as SPEC RED-02 words it.
const VENDOR_RE = new RegExp(
  [
    "anthropic_",
    "openai_",
    "azure_openai_",
    "google_api_key",
    "gemini_",
    "claude_api",
    "codex_",
    "authorization",
    "bearer\\s",
    "private[_-]?key",
    "access[_-]?key",
    "refresh[_-]?token",
    "id[_-]?token",
    "auth[_-]?token",
    "api[_-]?key",
  ].join("|"),
);

// A word boundary so `monkey: banana` survives; ASCII-only, so an unusual preceding character errs
// towards dropping. A closing quote may sit before the operator (`{"password": "x"}`).
const BARE_WORD_RE = /(?:^|[^A-Za-z0-9_])(token|key|secret|auth|password|passwd)["']?\s*(?=[=:])/gi;
// Every word either rule needs, so most lines are passed by one cheap test.
const HINT_RE = /token|key|secret|auth|passw|bearer|anthropic|openai|gemini|claude|codex/i;

export function dropsLine(line: string): boolean {
  if (!HINT_RE.test(line)) return false;
  const lower = line.toLowerCase();
  if (VENDOR_RE.test(lower)) return true;
  BARE_WORD_RE.lastIndex = 0;
  for (let m = BARE_WORD_RE.exec(line); m !== null; m = BARE_WORD_RE.exec(line)) {
    const at = BARE_WORD_RE.lastIndex;
    const op = operatorAt(line, at);
    if (op === undefined) continue;
    if (!isCodeValue(line.slice(op.end), op.op, m[1].toLowerCase() === "key", envAssignment(line, at))) return true;
  }
  return false;
}
