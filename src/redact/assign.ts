/** Assigned credentials (`DB_PASSWORD=`, `"dbPassword": …`): only the value is replaced, unless it is code (values.ts). */
import { SECRET, type Span, spliceSecrets } from "./placeholders";
import { assignedLiteral, envAssignment, looksRandom, operatorAt, quoted } from "./values";

// The word, an optional closing quote or bracket (`environ["DB_PASSWORD"] =`), the operator; the rest
// of the name is read backwards from the word.
const WORD = "password|passwd|passphrase|pass|pwd|secret|token|key[-_]data|key|auth|credentials?";
const NAME_END_RE = new RegExp(`(${WORD})["'\\]]*\\s*(?=[:=?+])`, "gi");
const WORD_AT_END_RE = new RegExp(`(${WORD})$`, "i");
// `SECRET_KEY_BASE`, unless its last part is about the credential (`TOKEN_TTL`).
const ENV_MIDDLE_RE = /(?<![A-Za-z0-9_.-])(?:[A-Z0-9]+_)*(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|KEY)((?:_[A-Z0-9]+)+)["'\]]*\s*(?=[:=?+])/g;
const ENV_MIDDLE_HINT_RE = /(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|KEY)_/;
const ENV_MIDDLE_NAME_RE = /^(?:[A-Z0-9]+_)*(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|KEY)((?:_[A-Z0-9]+)+)$/;
const ABOUT_RE =
  /_(?:FILE|PATH|DIR|URL|URI|ID|NAME|LENGTH|LEN|SIZE|TTL|EXPIRY|EXPIRES|EXPIRATION|LIFETIME|HEADER|TYPE|ALGORITHM|ALG|FORMAT|PREFIX|SUFFIX|ENABLED|DISABLED|REQUIRED|RULES?|COUNT|MAX|MIN|TIMEOUT|VERSION|REF|ARN|REGION|ENDPOINT|HOST|PORT|USER|USERNAME|LOGIN|MODE|POLICY|ROTATION|DAYS|FIELD|PARAM|ENV|VAR|SOURCE|PROVIDER|ISSUER|AUDIENCE|SCOPES?|[A-Z]*(?:PASSWORD|PASSWD|PASSPHRASE|PASS|PWD|SECRET|TOKEN|KEY|AUTH|CREDENTIALS?))$/;
// `<password>…</password>`, and `<add key="ApiToken" value="…"/>`-style pairs.
const XML_RE = /<([A-Za-z][\w.:-]*)>([^<]+)<\/\1>/g;
const PAIR_RE = /\b(?:key|name)["']?\s*[=:]\s*["']([^"']+)["']\s*,?\s*["']?value["']?\s*[=:]\s*(["'])([^"']*)\2/gi;
const HINT_RE = /pass|pwd|secret|token|key|auth|credential|SESSION|_(?:SK|PAT|PW|CREDS)\b/i;
// Only after a separator or camelCase hump: `bypass`, `monkey`, `oauth`.
const NEEDS_BOUNDARY = new Set(["pass", "pwd", "key", "auth"]);
const GLUED_NAMES = new Set(["SSHPASS", "PGPASS", "RCLONE_PASS"]);
// Public by definition.
const PUBLIC_RE = /publi[cs]|pub[-_.]?key/i;
const ENV_STYLE_RE = /^[A-Z0-9_]*[A-Z][A-Z0-9_]*$/;
// `ENV NAME value`, `setenv`, `set -x`, `setx`, `aws configure set`, `git config a.b value`.
const ENV_KEYWORD_RE = /^(\s*(?:[+$>]\s+)?(?:ENV|setenv|setx|set\s+-[A-Za-z]+|launchctl\s+setenv|aws\s+configure\s+set|git\s+config(?:\s+--[a-z]+)*)\s+)([A-Za-z_][A-Za-z0-9_.]*)([ \t]+)(?=\S)/;
// `aws_session_token <v>` as credential helpers print it: only a separated name and a random value.
const NAME_SPACE_VALUE_RE = /^(\s*)([A-Za-z][A-Za-z0-9]*[_.][A-Za-z0-9_.]*)([ \t]+)(\S+)\s*$/;
// More last parts that hold a credential: `BW_SESSION`, `OP_SESSION_<account>`, `ALIYUN_SK`, `GITLAB_PAT`.
const ENV_EXTRA_RE = /(?<![A-Za-z0-9_.-])(?:(?:[A-Z0-9]+_)+(?:SESSION|SK|PAT|PW|CREDS|COOKIE)|OP_SESSION_[A-Za-z0-9_]+)["'\]]*\s*(?=[:=])/g;
const ENV_EXTRA_HINT_RE = /SESSION|_(?:SK|PAT|PW|CREDS|COOKIE)\b/;
const ENV_EXTRA_NAME_RE = /^(?:(?:[A-Z0-9]+_)+(?:SESSION|SK|PAT|PW|CREDS|COOKIE)|OP_SESSION_[A-Za-z0-9_]+)$/;

type Strength = "strong" | "weak";

/** Undefined when the name says nothing. */
function strength(prefix: string, suffix: string): Strength | undefined {
  const name = prefix + suffix;
  if (PUBLIC_RE.test(name)) return undefined;
  const word = suffix.toLowerCase();
  const last = prefix[prefix.length - 1];
  // A bare word is RED-02's (lines.ts), except those it does not list.
  if (last === undefined) return word === "pass" || word === "passphrase" ? "strong" : undefined;
  const separated = last === "_" || last === "-" || last === ".";
  const hump = /[a-z0-9]/.test(last) && suffix[0] >= "A" && suffix[0] <= "Z";
  if (NEEDS_BOUNDARY.has(word) && !separated && !hump) {
    if (GLUED_NAMES.has(name)) return "strong";
    // `MAILGUN_APIKEY` yes, `HOTKEY` no: only a random-looking value.
    return word === "key" && suffix === "KEY" && ENV_STYLE_RE.test(name) && name.includes("_") ? "weak" : undefined;
  }
  const segment = name.slice(name.lastIndexOf(".") + 1).replace(/^-+/, "");
  if (word === "key" && !ENV_STYLE_RE.test(segment)) return "weak";
  return "strong";
}

/** Undefined after `[` (the placeholder is no name) or inside `${…}` (a reference with a default). */
function namePrefix(s: string, at: number): string | undefined {
  let start = at;
  while (start > 0 && /[A-Za-z0-9_.-]/.test(s[start - 1])) start--;
  if (s[start - 1] === "[" || (s[start - 1] === "{" && s[start - 2] === "$")) return undefined;
  return s.slice(start, at);
}

/** A bare name: an XML tag, a pair's key, a YAML `name:`. */
function namesCredential(name: string, bare = true): boolean {
  const m = WORD_AT_END_RE.exec(name);
  if (m === null) {
    const mid = ENV_MIDDLE_NAME_RE.exec(name);
    return mid !== null && !ABOUT_RE.test(mid[1]);
  }
  const prefix = name.slice(0, m.index);
  if (prefix === "") return bare && m[1].toLowerCase() !== "key" && m[1].toLowerCase() !== "auth";
  return strength(prefix, m[1]) === "strong";
}

// `os.Setenv("X", "v")`, `System.setProperty("x.password", "v")` and the like.
const SETTER_RE = /\b(?:SetEnvironmentVariable|Setenv|setenv|putenv|setProperty|set_var)\(\s*(["'])([A-Za-z_][\w.-]*)\1\s*,\s*(["'])([^"']+)\3/g;

export function replaceAssignments(line: string): string {
  if (!HINT_RE.test(line)) return line;
  let s = line;
  if (s.includes("(") && /set|put/i.test(s)) {
    s = s.replace(SETTER_RE, (m, _q: string, name: string, _q2: string, v: string) =>
      (namesCredential(name, false) || ENV_EXTRA_NAME_RE.test(name)) && literalValue(v) ? m.slice(0, m.length - v.length - 1) + SECRET + m.slice(-1) : m,
    );
  }
  const env = ENV_KEYWORD_RE.exec(s);
  if (env && (namesCredential(env[2], false) || ENV_EXTRA_NAME_RE.test(env[2]))) {
    s = spliceSecrets(s, spanList(valueSpan(s, env[0].length, "assign", false, false, true)));
  } else if (env === null) {
    const bare = NAME_SPACE_VALUE_RE.exec(s);
    if (bare && (namesCredential(bare[2], false) || ENV_EXTRA_NAME_RE.test(bare[2])) && looksRandom(bare[4])) {
      const at = bare[1].length + bare[2].length + bare[3].length;
      s = spliceSecrets(s, [[at, at + bare[4].length]]);
    }
  }
  if (ENV_EXTRA_HINT_RE.test(s)) s = replaceNamed(s, ENV_EXTRA_RE, (m, l) => (namePrefix(l, m.index) === "" ? "strong" : undefined));
  s = replaceNamed(s, NAME_END_RE, (m, l) => {
    const prefix = namePrefix(l, m.index);
    return prefix === undefined ? undefined : strength(prefix, m[1]);
  });
  if (ENV_MIDDLE_HINT_RE.test(s)) {
    s = replaceNamed(s, ENV_MIDDLE_RE, (m, l) => (ABOUT_RE.test(m[1]) || namePrefix(l, m.index) !== "" ? undefined : "strong"));
  }
  if (s.includes("</")) s = s.replace(XML_RE, (m, tag: string, v: string) => (namesCredential(tag) && literalValue(v) ? `<${tag}>${SECRET}</${tag}>` : m));
  if (/value/i.test(s)) {
    s = s.replace(PAIR_RE, (m, name: string, _q: string, v: string) => (namesCredential(name) && literalValue(v) ? m.slice(0, m.length - v.length - 1) + SECRET + m.slice(-1) : m));
  }
  return s;
}

const spanList = (span: Span | undefined): Span[] => (span ? [span] : []);

// Kubernetes and ECS print `- name: DB_PASSWORD` then `value: hunter2` on the next line.
const ENTRY_NAME_RE = /^\s*(?:-\s+|\{\s*)?["']?name["']?\s*:\s*["']?([A-Za-z_][\w.-]*)["']?,?\s*$/;
const ENTRY_VALUE_RE = /^\s*["']?value["']?\s*:/;

export function namesCredentialEntry(line: string): boolean {
  const m = ENTRY_NAME_RE.exec(line);
  return m !== null && namesCredential(m[1]);
}

/** The line after `namesCredentialEntry`. */
export function replaceEntryValue(line: string): string {
  const m = ENTRY_VALUE_RE.exec(line);
  return m ? spliceSecrets(line, spanList(valueSpan(line, m[0].length, "assign", false, false))) : line;
}

function literalValue(v: string): boolean {
  return v.length >= 2 && !v.startsWith(SECRET) && assignedLiteral(v, "assign") !== undefined;
}

/** `re`'s match ends where the operator starts. */
function replaceNamed(line: string, re: RegExp, level: (m: RegExpExecArray, line: string) => Strength | undefined): string {
  const spans: Span[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    const named = level(m, line);
    if (named === undefined) continue;
    const opAt = re.lastIndex;
    const op = operatorAt(line, opAt);
    if (op === undefined || op.op === "compare" || op.op === "path") continue;
    // `name :exec`, `ok ? token : other`: a spaced colon is an annotation or a ternary, not a key.
    if (op.op === "colon" && /\s/.test(line[opAt - 1])) continue;
    const tight = line[opAt] === "=" && !/\s/.test(line[opAt - 1]) && !/\s/.test(line[op.end] ?? " ");
    const span = valueSpan(line, op.end, op.op, named === "weak", tight, envAssignment(line, opAt));
    if (span === undefined) continue;
    spans.push(span);
    if (span[1] >= line.length) break;
    re.lastIndex = span[1];
  }
  re.lastIndex = 0;
  return spliceSecrets(line, spans);
}

/** Only a literal. A tight `NAME=value` ends at whitespace, a quote or a connection string's next `;Name=`; else the line's end. */
function valueSpan(s: string, from: number, op: "assign" | "colon", weak: boolean, tight: boolean, env = false): Span | undefined {
  if (assignedLiteral(s.slice(from), op, weak, env) === undefined) return undefined;
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
  // One character is a switch (`SKIP_AUTH=1`), not a credential.
  if (value.length < 2 || (weak && !looksRandom(value) && value !== SECRET)) return undefined;
  return [start, end];
}
