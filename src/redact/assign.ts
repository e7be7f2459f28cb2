/**
 * Assigned credentials: a name that ends in a credential word (`DB_PASSWORD=`, `HF_TOKEN=`,
 * `client_secret:`, `"dbPassword": "…"`, `--db-password=…`, `ENV API_SECRET value`) keeps its name;
 * only the value becomes `[redacted-secret]`, unless the value is code (see values.ts).
 */
import { SECRET, type Span, spliceSecrets } from "./placeholders";
import { assignedLiteral, looksRandom, operatorAt, quoted } from "./values";

// A name ends in one of these words, then an optional closing quote or bracket (`"dbPassword":`,
// `environ["DB_PASSWORD"] =`), then its operator. The rest of the name is read backwards from the
// word: letters, digits, `_`, `.` and `-` (`db.password`, `client-key-data`, `--db-password`).
const NAME_END_RE = /(password|passwd|pass|pwd|secret|token|key[-_]data|key|auth|credentials?)["'\]]*\s*(?=[:=?+])/gi;
const HINT_RE = /pass|pwd|secret|token|key|auth|credential/i;
// Words that end a name only after a separator or a camelCase hump: `bypass`, `monkey`, `oauth`.
const NEEDS_BOUNDARY = new Set(["pass", "pwd", "key", "auth"]);
// Environment names that end in a credential word with no separator.
const GLUED_NAMES = new Set(["SSHPASS", "PGPASS", "RCLONE_PASS"]);
// Public by definition: `STRIPE_PUBLISHABLE_KEY`, `NEXT_PUBLIC_…`, `ssh_pub_key`.
const PUBLIC_RE = /publi[cs]|pub[-_.]?key/i;
const ENV_STYLE_RE = /^[A-Z0-9_]*[A-Z][A-Z0-9_]*$/;
// Dockerfile `ENV NAME value`, csh `setenv NAME value`, fish `set -x NAME value`.
const ENV_KEYWORD_RE = /^(\s*(?:ENV|setenv|set\s+-[A-Za-z]+)\s+)([A-Za-z_][A-Za-z0-9_]*)([ \t]+)(?=\S)/;

type Strength = "strong" | "weak";

/** How much a name says it holds a credential; undefined when it says nothing. */
function strength(prefix: string, suffix: string): Strength | undefined {
  const name = prefix + suffix;
  if (PUBLIC_RE.test(name)) return undefined;
  const word = suffix.toLowerCase();
  const last = prefix[prefix.length - 1];
  // A bare word is RED-02's business (lines.ts), except `pass`, which RED-02 does not list.
  if (last === undefined) return word === "pass" ? "strong" : undefined;
  const separated = last === "_" || last === "-" || last === ".";
  const hump = /[a-z0-9]/.test(last) && suffix[0] >= "A" && suffix[0] <= "Z";
  if (NEEDS_BOUNDARY.has(word) && !separated && !hump) return GLUED_NAMES.has(name) ? "strong" : undefined;
  const segment = name.slice(name.lastIndexOf(".") + 1).replace(/^-+/, "");
  if (word === "key" && !ENV_STYLE_RE.test(segment)) return "weak";
  return "strong";
}

/**
 * The part of the name before the credential word that ends at `at`, or undefined when the name
 * starts right after `[` (the placeholder `[redacted-secret]` is no name) or inside `${…}` (where
 * `${TOKEN:-}` is a reference with a default).
 */
function namePrefix(s: string, at: number): string | undefined {
  let start = at;
  while (start > 0 && /[A-Za-z0-9_.-]/.test(s[start - 1])) start--;
  if (s[start - 1] === "[" || (s[start - 1] === "{" && s[start - 2] === "$")) return undefined;
  return s.slice(start, at);
}

/** Replaces the values assigned to credential names in `line`. */
export function replaceAssignments(line: string): string {
  if (!HINT_RE.test(line)) return line;
  const spans: Span[] = [];
  const env = ENV_KEYWORD_RE.exec(line);
  if (env) {
    const m = /(password|passwd|pass|pwd|secret|token|key|auth|credentials?)$/i.exec(env[2]);
    const span = m && strength(env[2].slice(0, m.index), m[1]) ? valueSpan(line, env[0].length, "assign", false, false) : undefined;
    if (span) spans.push(span);
  }
  NAME_END_RE.lastIndex = spans.length ? spans[0][1] : 0;
  for (let m = NAME_END_RE.exec(line); m !== null; m = NAME_END_RE.exec(line)) {
    const prefix = namePrefix(line, m.index);
    if (prefix === undefined) continue;
    const level = strength(prefix, m[1]);
    if (level === undefined) continue;
    const opAt = NAME_END_RE.lastIndex;
    const op = operatorAt(line, opAt);
    if (op === undefined || op.op === "compare" || op.op === "path") continue;
    // `name :exec`, `ok ? token : other`: a spaced colon is an annotation or a ternary, not a key.
    if (op.op === "colon" && /\s/.test(line[opAt - 1])) continue;
    const tight = line[opAt] === "=" && !/\s/.test(line[opAt - 1]) && !/\s/.test(line[op.end] ?? " ");
    const span = valueSpan(line, op.end, op.op, level === "weak", tight);
    if (span === undefined) continue;
    spans.push(span);
    if (span[1] >= line.length) break;
    NAME_END_RE.lastIndex = span[1];
  }
  NAME_END_RE.lastIndex = 0;
  return spliceSecrets(line, spans);
}

/**
 * Where the value that starts at `from` (after spaces) lies, when it is a literal. A quoted value
 * keeps its quotes; an unquoted `NAME=value` ends at whitespace, a quote or the next `;Name=` of a
 * connection string; any other unquoted value runs to the end of the line.
 */
function valueSpan(s: string, from: number, op: "assign" | "colon", weak: boolean, tight: boolean): Span | undefined {
  if (assignedLiteral(s.slice(from), op, weak) === undefined) return undefined;
  let start = from;
  while (s[start] === " " || s[start] === "\t") start++;
  let end = s.length;
  const q = /^[frbuFRBU]{0,2}(["'`])/.exec(s.slice(start, start + 3));
  if (q) {
    start += q[0].length;
    end = start + quoted(s, start, q[1]).length;
  } else if (tight) {
    const stop = /[\s"']|;(?=\s*[A-Za-z][\w ]*=)/.exec(s.slice(start));
    if (stop) end = start + stop.index;
  } else {
    while (end > start && /\s/.test(s[end - 1])) end--;
  }
  const value = s.slice(start, end);
  // One character is a switch (`SKIP_AUTH=1`, `USE_TOKEN=y`), not a credential; a weak name needs
  // a random-looking value.
  if (value.length < 2 || (weak && !looksRandom(value) && value !== SECRET)) return undefined;
  return [start, end];
}
