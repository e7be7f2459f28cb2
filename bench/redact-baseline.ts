/**
 * BASELINE, not used by vx: the redactor as it was before issue 9 (src/redact.ts at 916bcc8),
 * kept verbatim so bench/redact.ts can measure the new one against it in the same run.
 */

/** Replacement for a whole line that looks like it carries a credential (RED-02). */
export const SENSITIVE_LINE = "[redacted sensitive line]";
/** Replacement for a whole PEM private key block (RED-03). */
export const PRIVATE_KEY_BLOCK = "[redacted private key block]";
/** Replacement for one in-line token or URL credential (RED-04). */
export const SECRET = "[redacted-secret]";

// RED-02, tested against the lower-cased line. The bare-word rule is anchored on a character that is
// not [a-z0-9_] so `monkey: banana` and `keyboard: x` survive; ASCII-only on purpose, so an unusual
// preceding character errs towards dropping the line. A closing quote may sit between the word and
// its `:`/`=` so quoted keys (`{"password": "x"}`, `token='x'` in JSON or YAML dumps) are caught too.
const SENSITIVE_LINE_RE = new RegExp(
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
    "(?:^|[^a-z0-9_])(?:token|key|secret|auth|password|passwd)[\"']?\\s*[=:]",
  ].join("|"),
);

// RED-03 markers; PEM armour is upper-case by definition.
const PEM_BEGIN = "-----BEGIN";
const PEM_END = "-----END";
const PEM_TAIL = "PRIVATE KEY-----";

// RED-04 tokens. Each must start at line start or after a character outside [A-Za-z0-9_-]. The
// trailing [A-Za-z0-9_-]* swallows the rest of the word: leaving a tail glued to the placeholder
// could expose a second token that was not anchored before (`]` is an anchor), which would break
// idempotency, and a longer run starting with a key prefix is no ordinary word anyway.
const TOKEN_RE = new RegExp(
  "(?<![A-Za-z0-9_-])(?:" +
    [
      "sk-[A-Za-z0-9_-]{16,}",
      "gh[pousr]_[A-Za-z0-9_]{20,}",
      "glpat-[A-Za-z0-9_-]{20,}",
      "xox[baprs]-[A-Za-z0-9-]{10,}",
      "(?:AKIA|ASIA)[A-Z0-9]{16}",
      "AIza[A-Za-z0-9_-]{35}",
      "npm_[A-Za-z0-9]{36}",
      "eyJ[A-Za-z0-9_-]{7,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}",
    ].join("|") +
    ")[A-Za-z0-9_-]*",
  "g",
);
// Cheap pre-check so most lines skip the full token scan.
const TOKEN_HINT_RE = /sk-|gh[pousr]_|glpat-|xox[baprs]-|AKIA|ASIA|AIza|npm_|eyJ/;

// RED-04 URL credentials: `<scheme>://<user>:<password>@`. The user part excludes `:` `/` `@` so the
// match cannot run past the authority; a password may contain `:`. Once replaced, no `:` remains
// between `//` and `@`, so a second pass leaves it alone.
const URL_CRED_RE = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s:/@]*:[^\s/@]*@/g;

/**
 * Redacts secrets from captured pane text (RED-02..04) without mangling ordinary words (RED-05).
 * Line structure is kept, except that a PEM private key block collapses to one line.
 */
export function redact(text: string): string {
  if (text === "") return text;
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const begin = line.indexOf(PEM_BEGIN);
    if (begin !== -1 && line.includes(PEM_TAIL, begin)) {
      out.push(PRIVATE_KEY_BLOCK + carriageReturn(line));
      // A one-line block (armour pasted with literal `\n`s) ends on its own BEGIN line.
      if (endsBlock(line.slice(begin + PEM_BEGIN.length))) continue;
      while (i + 1 < lines.length) {
        i++;
        if (endsBlock(lines[i])) break;
      }
      continue;
    }
    out.push(redactLine(line));
  }
  return out.join("\n");
}

function endsBlock(line: string): boolean {
  const end = line.indexOf(PEM_END);
  return end !== -1 && line.includes(PEM_TAIL, end);
}

// Keep a CRLF line a CRLF line when it is replaced wholesale.
function carriageReturn(line: string): string {
  return line.endsWith("\r") ? "\r" : "";
}

function redactLine(line: string): string {
  if (SENSITIVE_LINE_RE.test(line.toLowerCase())) return SENSITIVE_LINE + carriageReturn(line);
  let result = line;
  if (TOKEN_HINT_RE.test(result)) result = result.replace(TOKEN_RE, SECRET);
  if (result.includes("://")) result = result.replace(URL_CRED_RE, `$1${SECRET}@`);
  return result;
}
