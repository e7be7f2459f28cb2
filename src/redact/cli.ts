/** Credentials on command lines and in `.netrc`; only the value is replaced. */
import { SECRET, type Span, spliceSecrets } from "./placeholders";
import { assignedLiteral, looksRandom } from "./values";

// `--password=…` is an assignment (assign.ts).
const FLAG_RE = /(?<![A-Za-z0-9_-])--(?:(?:[A-Za-z0-9]+-)*(?:password|passwd|passphrase|pass|pwd|token|secret|credentials?)|(?:[A-Za-z0-9]+-)+key)[ \t]+(?=[^\s-])/gi;
// Names that say less: only a random-looking value is taken.
const WEAK_FLAG_RE = /(?<![A-Za-z0-9_-])--(?:key|auth|session|pat|pw|apikey|jwt|sas)[ \t]+(?=[^\s-])/gi;
// Single-dash long flags (`-storepass v`, `-ClientSecret v`); not openssl's `-pass env:X`, which points elsewhere.
const DASH_FLAG_RE = /(?<=\s)-(?:[A-Za-z]*(?:pass|password|passwd|passphrase|pwd|token|secret))[ \t]+(?=[^\s-])(?!(?:env|file|fd|stdin|pass):)/gi;
const SECURE_STRING_RE = /(?<=ConvertTo-SecureString\s+(?:-String\s+)?)(["'])([^"']+)\1/gi;
// Commands whose arguments are secrets whatever they are called (`heroku config:set X=v`).
const SECRET_COMMAND_RE = /\b(?:secrets?\s+set|config:set|create\s+secret|variables\s+set)\s/;
const SECRET_ARG_RE = /(?<=\s)(?:(?:--from-literal=)?[A-Za-z_][\w.-]*=|(?:--body|-b)(?:\s+|=))(?=[^\s-])/g;
// A metavariable (`--token TOKEN`) documents the flag; a function word after it (`--token to`) is prose.
const METAVAR_RE = /^(?:[A-Z][A-Z0-9_]*|<[^>]*>|\[[^\]]*\]|(?:to|and|or|the|a|an|for|with|from|in|on|of|is|as|if|when|flag|option|value)(?=\s))(?=$|[\s,;)])/;

// Short flags whose meaning depends on the command: [command on the line, flag with its value].
const SHORT_FLAGS: readonly [RegExp, RegExp][] = [
  // mysql reads `-p secret` as "prompt, then database secret".
  [/\b(?:mysql\w*|mariadb[\w-]*)\b/, /(?<=\s)-p(?=[^\s-])/g],
  [/\bsshpass\b/, /(?<=\s)-p\s*(?=\S)/g],
  [/\blogin\b/, /(?<=\s)-p\s+(?=\S)/g],
  [/\bredis-cli\b/, /(?<=\s)-a\s+(?=\S)/g],
  [/\bmongo(?:sh|dump|restore|import|export)?\b/, /(?<=\s)-p\s+(?=[^\s-])/g],
  [/\b(?:sqlcmd|bcp|osql|isql)\b/, /(?<=\s)-P\s*(?=[^\s-])/g],
  [/\b(?:zip|unzip|zipcloak|rar|unrar)\b/, /(?<=\s)-P\s+(?=[^\s-])/g],
  [/\b7za?\b/, /(?<=\s)-p(?=[^\s-])/g],
  [/\bldap\w+\b/, /(?<=\s)-w\s+(?=[^\s-])/g],
  [/\bssh-keygen\b/, /(?<=\s)-[NP]\s+(?=[^\s-])/g],
  [/\bopenssl\b/, /(?<=\s)-k\s+(?=[^\s-])/g],
  [/\btwine\b/, /(?<=\s)-p\s+(?=[^\s-])/g],
  [/\bnuget\b/, /(?<=\s)-k\s+(?=[^\s-])/g],
  [/\b(?:psexec|paexec|winexe)\b/i, /(?<=\s)-p\s+(?=[^\s-])/g],
];
const SHORT_HINT_RE = /\s-[-pauUPwkN]/;
// `--password-stdin <<< v`: taken when the line has a credential word.
const HERE_STRING_RE = /(?<=<<<\s*)(["']?)([^\s"']+)\1/g;
// `htpasswd -b`: the password is the last argument.
const HTPASSWD_RE = /\bhtpasswd\s+((?:-[A-Za-z]+\s+)*)(\S+)\s+(\S+)\s+(["']?)([^\s"']+)\4/;
// Samba's `-U user%password`.
const SMB_USER_RE = /(?<=\s-U\s*["']?[^\s%"']+%)[^\s"']+/g;

const HTTP_CLIENT_RE = /\b(?:curl|wget|https?|xh)\b/;
const USER_FLAG_RE = /\s(?:-[uUa]|--user|--proxy-user|--auth)[\s=]/;
const USER_PASS_RE = /(?<=\s)(?:-u|--user|-U|--proxy-user|-a|--auth)(?:\s+|=)(["']?)([^\s"':]*):([^\s"']+)/g;

const OPENSSL_PASS_RE = /(?<![A-Za-z0-9_-])pass:([^\s"']+)/g;
const ODBC_PWD_RE = /(?<=^|[;"'\s])pwd=(?![/~$])([^;"'\s]+)/gi;
const NETRC_ONE_LINE_RE = /^(\s*(?:machine\s+\S+|default)\b.*?\s(?:password|passwd)\s+)(\S+)/;
const NETRC_START_RE = /^\s*(?:machine\s+\S+|default)(?:\s*$|\s+(?:login|password|passwd|account|port)\s)/;
const NETRC_FIELD_RE = /^(\s*(?:login|password|passwd|account|port|protocol|macdef)\s)/;
const NETRC_PASSWORD_RE = /^(\s*(?:password|passwd)\s+)(\S+)/;

/** False for code and placeholders. */
function literalAt(v: string): boolean {
  return !v.startsWith("<") && !METAVAR_RE.test(v) && assignedLiteral(v, "colon") !== undefined;
}

function wordAt(s: string, at: number): Span {
  const q = s[at] === '"' || s[at] === "'" ? s[at] : undefined;
  const start = q ? at + 1 : at;
  let end = start;
  while (end < s.length && (q ? s[end] !== q : !/\s/.test(s[end]))) end++;
  return [start, end];
}

/** The literal value after each match of `re`; with `random`, only a random-looking one. */
function replaceAfter(s: string, re: RegExp, random = false): string {
  const spans: Span[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    const at = re.lastIndex;
    if (!literalAt(s.slice(at))) continue;
    const span = wordAt(s, at);
    if (random && !looksRandom(s.slice(span[0], span[1]))) continue;
    spans.push(span);
    re.lastIndex = Math.max(span[1], at + 1);
  }
  re.lastIndex = 0;
  return spliceSecrets(s, spans);
}

/** `words`: the line holds a credential word; the rules that need one skip it otherwise. */
export function replaceCommandLine(line: string, words = true): string {
  let s = line;
  if (words && s.includes("--")) s = replaceAfter(s, FLAG_RE);
  if (s.includes("--")) s = replaceAfter(s, WEAK_FLAG_RE, true);
  if (words && (s.includes(" -") || s.includes("\t-"))) s = replaceAfter(s, DASH_FLAG_RE);
  if (s.includes("SecureString")) s = s.replace(SECURE_STRING_RE, (m, q: string, v: string) => (v.startsWith(SECRET) || assignedLiteral(v, "assign") === undefined ? m : q + SECRET + q));
  if (s.includes("%") && /\b(?:smbclient|rpcclient|smbmap|smbcacls|net\s+rpc)\b/.test(s)) s = s.replace(SMB_USER_RE, (v) => (v.startsWith(SECRET) ? v : SECRET));
  if (words && s.includes("<<<")) s = s.replace(HERE_STRING_RE, (m, q: string, v: string) => (literalAt(v) && !v.startsWith(SECRET) ? q + SECRET + q : m));
  if (s.includes("htpasswd")) {
    const h = HTPASSWD_RE.exec(s);
    if (h && /b/.test(h[1]) && literalAt(h[5]) && !h[5].startsWith(SECRET)) s = s.slice(0, h.index + h[0].length - h[5].length - h[4].length) + SECRET + s.slice(h.index + h[0].length - h[4].length);
  }
  if ((s.includes(" -") || s.includes("\t-")) && SHORT_HINT_RE.test(s)) {
    for (const [command, flag] of SHORT_FLAGS) if (command.test(s)) s = replaceAfter(s, flag);
    if (USER_FLAG_RE.test(s) && HTTP_CLIENT_RE.test(s)) {
      s = s.replace(USER_PASS_RE, (m, _q: string, user: string, pass: string) => {
        if (/^\d+$/.test(user) && /^\d+$/.test(pass)) return m; // a uid:gid
        if (assignedLiteral(pass, "assign") === undefined) return m;
        return m.slice(0, m.length - user.length - pass.length - 1) + SECRET;
      });
    }
  }
  if ((s.includes("secret") || s.includes("config:set") || s.includes("variables")) && SECRET_COMMAND_RE.test(s)) {
    s = replaceAfter(s, SECRET_ARG_RE);
  }
  if (!words) return s;
  if (s.includes("pass:") && /\bopenssl\b|\s-pass(?:in|out)?\s/.test(s)) s = s.replace(OPENSSL_PASS_RE, `pass:${SECRET}`);
  if (s.includes(";")) s = s.replace(ODBC_PWD_RE, (m, v: string) => (v.startsWith(SECRET) ? m : m.slice(0, m.length - v.length) + SECRET));
  return s;
}

/** One-line or multi-line entries; `inBlock`: the previous line was part of one. */
export function replaceNetrc(line: string, inBlock: boolean): { line: string; inBlock: boolean } {
  if (NETRC_START_RE.test(line)) {
    const one = NETRC_ONE_LINE_RE.exec(line);
    const out = one && literalAt(one[2]) ? one[1] + SECRET + line.slice(one[0].length) : line;
    return { line: out, inBlock: true };
  }
  if (!inBlock || !NETRC_FIELD_RE.test(line)) return { line, inBlock: false };
  const pw = NETRC_PASSWORD_RE.exec(line);
  const out = pw && literalAt(pw[2]) ? pw[1] + SECRET + line.slice(pw[0].length) : line;
  return { line: out, inBlock: true };
}
