/**
 * Assigned credentials: a name that ends in a credential word (`DB_PASSWORD=`, `HF_TOKEN=`,
 * `client_secret:`, `"dbPassword": "…"`, `--db-password=…`, `ENV API_SECRET value`) keeps its name;
 * only the value becomes `[redacted-secret]`, unless the value is code (see values.ts).
 */
import { SECRET, type Span, spliceSecrets } from "./placeholders";
import { assignedLiteral, envAssignment, looksRandom, operatorAt, quoted } from "./values";

// A name ends in one of these words, then an optional closing quote or bracket (`"dbPassword":`,
// `environ["DB_PASSWORD"] =`), then its operator. The rest of the name is read backwards from the
// word: letters, digits, `_`, `.` and `-` (`db.password`, `client-key-data`, `--db-password`).
const WORD = "password|passwd|passphrase|pass|pwd|secret|token|key[-_]data|key|auth|credentials?";
const NAME_END_RE = new RegExp(`(${WORD})["'\\]]*\\s*(?=[:=?+])`, "gi");
const WORD_AT_END_RE = new RegExp(`(${WORD})$`, "i");
// An environment name with a credential word inside (`SECRET_KEY_BASE`, `DB_PASSWORD_PROD`), unless
// its last part says it is about the credential rather than the credential (`TOKEN_TTL`).
const ENV_MIDDLE_RE = /(?<![A-Za-z0-9_.-])(?:[A-Z0-9]+_)*(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|KEY)((?:_[A-Z0-9]+)+)["'\]]*\s*(?=[:=?+])/g;
const ENV_MIDDLE_HINT_RE = /(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|KEY)_/;
const ENV_MIDDLE_NAME_RE = /^(?:[A-Z0-9]+_)*(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|KEY)((?:_[A-Z0-9]+)+)$/;
const ABOUT_RE =
  /_(?:FILE|PATH|DIR|URL|URI|ID|NAME|LENGTH|LEN|SIZE|TTL|EXPIRY|EXPIRES|EXPIRATION|LIFETIME|HEADER|TYPE|ALGORITHM|ALG|FORMAT|PREFIX|SUFFIX|ENABLED|DISABLED|REQUIRED|RULES?|COUNT|MAX|MIN|TIMEOUT|VERSION|REF|ARN|REGION|ENDPOINT|HOST|PORT|USER|USERNAME|LOGIN|MODE|POLICY|ROTATION|DAYS|FIELD|PARAM|ENV|VAR|SOURCE|PROVIDER|ISSUER|AUDIENCE|SCOPES?|[A-Z]*(?:PASSWORD|PASSWD|PASSPHRASE|PASS|PWD|SECRET|TOKEN|KEY|AUTH|CREDENTIALS?))$/;
// XML elements (`<password>…</password>` in Maven or NuGet settings) and key/value pairs whose key
// names the credential (`<add key="ApiToken" value="…"/>`, `{"name": "DB_PASSWORD", "value": "…"}`).
const XML_RE = /<([A-Za-z][\w.:-]*)>([^<]+)<\/\1>/g;
const PAIR_RE = /\b(?:key|name)["']?\s*[=:]\s*["']([^"']+)["']\s*,?\s*["']?value["']?\s*[=:]\s*(["'])([^"']*)\2/gi;
const HINT_RE = /pass|pwd|secret|token|key|auth|credential|SESSION|_(?:SK|PAT|PW|CREDS)\b/i;
// Words that end a name only after a separator or a camelCase hump: `bypass`, `monkey`, `oauth`.
const NEEDS_BOUNDARY = new Set(["pass", "pwd", "key", "auth"]);
// Environment names that end in a credential word with no separator.
const GLUED_NAMES = new Set(["SSHPASS", "PGPASS", "RCLONE_PASS"]);
// Public by definition: `STRIPE_PUBLISHABLE_KEY`, `NEXT_PUBLIC_…`, `ssh_pub_key`.
const PUBLIC_RE = /publi[cs]|pub[-_.]?key/i;
const ENV_STYLE_RE = /^[A-Z0-9_]*[A-Z][A-Z0-9_]*$/;
// Dockerfile `ENV NAME value`, csh `setenv NAME value`, fish `set -x NAME value`, Windows
// `setx NAME value`, `launchctl setenv`, `aws configure set NAME value`, `git config [--global] a.b value`.
const ENV_KEYWORD_RE = /^(\s*(?:[+$>]\s+)?(?:ENV|setenv|setx|set\s+-[A-Za-z]+|launchctl\s+setenv|aws\s+configure\s+set|git\s+config(?:\s+--[a-z]+)*)\s+)([A-Za-z_][A-Za-z0-9_.]*)([ \t]+)(?=\S)/;
// A credential name alone at the start of a line, its value after spaces (`aws_session_token <v>` as
// credential helpers and `aws configure list` print it, `RENDER_TOKEN <v>`): taken only when the
// name has a separator and the value looks random.
const NAME_SPACE_VALUE_RE = /^(\s*)([A-Za-z][A-Za-z0-9]*[_.][A-Za-z0-9_.]*)([ \t]+)(\S+)\s*$/;
// Environment names whose last part says they hold a credential, beyond the words above: session
// keys (`BW_SESSION`, 1Password's `OP_SESSION_<account>`), access and secret key pairs (`ALIYUN_AK`,
// `ALIYUN_SK`), personal access tokens (`GITLAB_PAT`), `_PW`, `_CREDS`, `_COOKIE`.
const ENV_EXTRA_RE = /(?<![A-Za-z0-9_.-])(?:(?:[A-Z0-9]+_)+(?:SESSION|SK|PAT|PW|CREDS|COOKIE)|OP_SESSION_[A-Za-z0-9_]+)["'\]]*\s*(?=[:=])/g;
const ENV_EXTRA_HINT_RE = /SESSION|_(?:SK|PAT|PW|CREDS|COOKIE)\b/;
const ENV_EXTRA_NAME_RE = /^(?:(?:[A-Z0-9]+_)+(?:SESSION|SK|PAT|PW|CREDS|COOKIE)|OP_SESSION_[A-Za-z0-9_]+)$/;

type Strength = "strong" | "weak";

/** How much a name says it holds a credential; undefined when it says nothing. */
function strength(prefix: string, suffix: string): Strength | undefined {
  const name = prefix + suffix;
  if (PUBLIC_RE.test(name)) return undefined;
  const word = suffix.toLowerCase();
  const last = prefix[prefix.length - 1];
  // A bare word is RED-02's business (lines.ts), except those RED-02 does not list.
  if (last === undefined) return word === "pass" || word === "passphrase" ? "strong" : undefined;
  const separated = last === "_" || last === "-" || last === ".";
  const hump = /[a-z0-9]/.test(last) && suffix[0] >= "A" && suffix[0] <= "Z";
  if (NEEDS_BOUNDARY.has(word) && !separated && !hump) {
    if (GLUED_NAMES.has(name)) return "strong";
    // An environment name with `KEY` glued on (`HONEYCOMB_WRITEKEY`, `MAILGUN_APIKEY`): only a
    // random-looking value, since `MONKEY=` or `HOTKEY=` name no credential.
    return word === "key" && suffix === "KEY" && ENV_STYLE_RE.test(name) && name.includes("_") ? "weak" : undefined;
  }
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

/** Whether a bare name (an XML tag, the key of a key/value pair, a YAML `name:`) names a credential. */
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

// Calls that set an environment variable or property by name: .NET `SetEnvironmentVariable("X", "v")`,
// Go `os.Setenv("X", "v")`, `putenv`, Java `System.setProperty("x.password", "v")`.
const SETTER_RE = /\b(?:SetEnvironmentVariable|Setenv|setenv|putenv|setProperty|set_var)\(\s*(["'])([A-Za-z_][\w.-]*)\1\s*,\s*(["'])([^"']+)\3/g;

/** Replaces the values assigned to credential names in `line`. */
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

// A name/value list over two lines, as Kubernetes and ECS print environments: `- name: DB_PASSWORD`
// (or `"name": "DB_PASSWORD",`), then `value: hunter2` on the next line.
const ENTRY_NAME_RE = /^\s*(?:-\s+|\{\s*)?["']?name["']?\s*:\s*["']?([A-Za-z_][\w.-]*)["']?,?\s*$/;
const ENTRY_VALUE_RE = /^\s*["']?value["']?\s*:/;

/** Whether `line` is the name half of a name/value entry that names a credential. */
export function namesCredentialEntry(line: string): boolean {
  const m = ENTRY_NAME_RE.exec(line);
  return m !== null && namesCredential(m[1]);
}

/** Replaces the value of a `value:` line (the line after `namesCredentialEntry`). */
export function replaceEntryValue(line: string): string {
  const m = ENTRY_VALUE_RE.exec(line);
  return m ? spliceSecrets(line, spanList(valueSpan(line, m[0].length, "assign", false, false))) : line;
}

/** A literal of two characters or more, not code or a placeholder. */
function literalValue(v: string): boolean {
  return v.length >= 2 && !v.startsWith(SECRET) && assignedLiteral(v, "assign") !== undefined;
}

/**
 * Replaces the value after each name `re` finds (its match ends where the operator starts) whose
 * `level` is not undefined.
 */
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

/**
 * Where the value that starts at `from` (after spaces) lies, when it is a literal. A quoted value
 * keeps its quotes; an unquoted `NAME=value` ends at whitespace, a quote or the next `;Name=` of a
 * connection string; any other unquoted value runs to the end of the line.
 */
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
  // One character is a switch (`SKIP_AUTH=1`, `USE_TOKEN=y`), not a credential; a weak name needs
  // a random-looking value.
  if (value.length < 2 || (weak && !looksRandom(value) && value !== SECRET)) return undefined;
  return [start, end];
}
