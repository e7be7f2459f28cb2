/** Whether the text after `name =` or `name:` is a credential or code (RED-02): each exemption is a shape no credential has. */
import { SECRET } from "./placeholders";

type Operator = "assign" | "colon" | "compare" | "path";

/** `i`: just past the name and an optional closing quote or bracket. */
export function operatorAt(s: string, i: number): { op: Operator; end: number } | undefined {
  const c = s[i];
  const d = s[i + 1];
  if (c === ":") {
    if (d === ":") return { op: "path", end: i + 2 }; // `auth::session` is a module path
    if (d === "=") return { op: "assign", end: i + 2 }; // Go `:=`, make `:=`
    return { op: "colon", end: i + 1 };
  }
  if (c === "=") {
    if (d === "=") return { op: "compare", end: s[i + 2] === "=" ? i + 3 : i + 2 };
    if (d === ">") return { op: "assign", end: i + 2 }; // PHP and Ruby hashes
    return { op: "assign", end: i + 1 };
  }
  if ((c === "?" || c === "+") && d === "=") return { op: "assign", end: i + 2 }; // make `?=` `+=`
  return undefined;
}

/** `DB_PASSWORD=v`: its value is shell or `.env` text, not code. */
export function envAssignment(s: string, at: number): boolean {
  if (s[at] !== "=" || /[\s=>]/.test(s[at + 1] ?? " ")) return false;
  let start = at;
  while (start > 0 && /[A-Za-z0-9_]/.test(s[start - 1])) start--;
  return /^[A-Z0-9_]*[A-Z][A-Z0-9_]*$/.test(s.slice(start, at));
}

const END = "(?=$|[\\s,;)\\]}])";
const ID = "[A-Za-z_$][\\w$]*";
const SEP = "(?:\\.|\\?\\.|::|->)";
// `${X:-hunter2}` carries a literal default; `${X:-$Y}` does not.
const REF = `\\$\\{[A-Za-z_][\\w.]*(?::?\\?[^}]*|:?[-=](?:\\$[^}]*)?)?\\}`;
const TEMPLATE = `\\$?\\{\\{[^}]*\\}\\}`; // `{{ .Values.x }}`, `${{ secrets.X }}`
const PLACEHOLDER = "<[^<>]*>|\\*{3,}|[xX]{3,}|\\.\\.\\.|…";

// A bracket is a call only when it closes later or ends the line: a generated password may hold one.
const SHARED = [
  "$", // nothing: `if auth:`, `case key:`, a YAML parent key
  "[\\[{(]$", // a structure continued on the following lines, checked line by line
  `(?:\\[\\]|\\{\\}|\\(\\))${END}`,
  `(?:null|nil|none|undefined|true|false|yes|no|on|off|~)${END}`,
  `(?:${REF}|${TEMPLATE}|\\$[A-Za-z_]\\w*|\\$\\d+|%[A-Za-z_]\\w*%)+${END}`, // shell, CI, SQL references
  "\\$\\(|\\{%|<%", // command substitution, template tags
  // two segments or more: the credential is in the file
  `(?:(?:~|\\.{1,2})(?:/[\\w.@%+-]+)+|(?:/[\\w.@%+-]+){2,})/?${END}|[A-Za-z]:\\\\[\\w.@%+-]+\\\\\\S*`,
  `\\?${END}`,
  `(?:${PLACEHOLDER})${END}`,
  "\\([a-z]+(?:[ ,.'-]+[a-z]+)*\\.?\\)\\s*$", // a hint in words: `Password: (typing will be hidden)`, `(none)`
  `\\([^)]*\\)\\s*=>|${ID}\\s*=>`, // an arrow function
];
const CALL = `[!&*]?${ID}(?:\\s*${SEP}\\s*${ID})*\\s*(?:\\((?=.*\\)|\\s*$)|\\[(?=.*\\]|\\s*$))`; // a call, a subscript
// Not in an environment assignment.
const CODE_ONLY = [
  `[:@][A-Za-z_]\\w*${END}`, // SQL bind parameters
  "(?:new|await|yield|typeof|keyof|readonly|lambda|function|async|fn|func|move|impl|dyn)\\b",
  `[!&*]?${ID}(?:\\s*${SEP}\\s*${ID})*\\s*<(?:[\\w$<>,\\s.:\\[\\]&'*?]*>(?=$|[\\s,;)\\]}(\\[:.=])|\\s*$)`, // a generic type
  `${ID}(?:${SEP}${ID})+${END}`, // a member access: cfg.token, self.key, process.env.X
];
const CODE_RE = new RegExp(`^(?:${[...SHARED, CALL, ...CODE_ONLY].join("|")})`, "i");
const ENV_CODE_RE = new RegExp(`^(?:${[...SHARED, CALL].join("|")})`, "i");
// Three runs of digits between letters is random text, not code: identifiers hold one or two (`v1beta1`).
const RANDOM_WORD_RE = /^\S*?\d+[A-Za-z]+\d+[A-Za-z]+\d/;
const NOT_CODE_RE = new RegExp(`^(?:${SHARED.join("|")})`, "i");

// A capitalised type needs type punctuation after it: `password: Hunter` may be YAML, `Hunter,x2` one value.
const PRIM =
  "string|str|number|int|integer|float|double|bool|boolean|bytes|bytearray|any|unknown|object|void|never|char|rune|byte|usize|isize|[iuf](?:8|16|32|64|128)|bigint|symbol|String|Buffer|Uint8Array|SecretStr";
const TYPE_RE = new RegExp(
  `^(?:&(?:'\\w+\\s+)?(?:mut\\s+)?|\\*|\\[\\]|\\?)*(?:(?:${PRIM})(?=$|[\\s,;)\\]}|&<\\[?=>])|[A-Z][A-Za-z_]*(?:\\.[A-Z][A-Za-z_]*)*(?=\\s*(?:[,;)\\]}](?=$|[\\s,;)\\]}])|[|&<\\[?>]|=(?!=))))`,
);
const DEFAULT_RE = /^\s*=(?!=)\s*/;
const COMMENT_RE = /^\s+(?:#|\/\/|\/\*)|^\/\*/;

const INERT_CONTENT_RE = new RegExp(`^\\$\\(.*\\)$|^(?:${REF}|${TEMPLATE}|\\$[A-Za-z_]\\w*|\\{[A-Za-z_][\\w.]*\\}|%[sdv]|%\\([a-z_]+\\)s|${PLACEHOLDER}|[\\s:/@._-])*$`);
// Names a field, not a credential: `key: password`, `- key: tls.key`.
const FIELD_NAME_RE = /^(?:[a-z]+[-_.])*(?:password|passwd|token|secret|key|auth|credentials?|cert|crt|pem)(?:[-_.][a-z]+)*$/;
// `key: "startedAt"` is a field name; credentials carry digits or mixed noise.
const WEAK_NAME_RE = /^[A-Za-z][A-Za-z_]*(?:[.-][A-Za-z_]+)*$/;
// A variable in a list, unless more follows (`QgTKT,f0Sp4hNlE6` is one password).
const VARIABLE_RE = /^[A-Za-z_][A-Za-z_]*\s*[,;)](?=$|[\s,;)\]}])/;
const QUOTE_RE = /^[frbuFRBU]{0,2}(["'`])/;

/** Undefined for code or a placeholder. `weak`: the word `key`; `env`: an environment assignment, where code shapes do not apply. */
export function assignedLiteral(rest: string, op: Operator, weak = false, env = false): string | undefined {
  if (op === "path") return undefined;
  const v = rest.trim();
  if (v.startsWith(SECRET)) return v; // already redacted: a literal stays a literal on the next pass
  if (COMMENT_RE.test(rest)) return undefined; // `password: # set below`, but `PASS=#x` is a value
  if (op === "assign" && v.startsWith("{") && jsxExpression(v)) return undefined;
  if (op === "colon") {
    const after = afterType(v);
    if (after !== undefined) {
      const dflt = DEFAULT_RE.exec(after);
      return dflt ? assignedLiteral(after.slice(dflt[0].length), "assign", weak, env) : undefined;
    }
  }
  const literal = literalText(v, weak, env);
  if (literal === undefined || (op === "compare" && !looksRandom(literal))) return undefined;
  return literal;
}

// JSX `key={row.id}`; ODBC's `Pwd={hunter2};` is followed by `;`.
const JSX_RE = /^\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}(?=$|[\s>/])/;

function jsxExpression(v: string): boolean {
  const m = JSX_RE.exec(v);
  if (m === null) return false;
  const inner = m[1].trim();
  if (inner.startsWith("`")) return INERT_CONTENT_RE.test(quoted(inner, 1, "`"));
  return /^[A-Za-z_$]+$/.test(inner) || (/^[A-Za-z_$(!]/.test(inner) && /[.([?!=<>&|+*-]/.test(inner));
}

/** The text after a leading type, where a default may follow; undefined when `v` is no type. */
function afterType(v: string): string | undefined {
  let at = 0;
  for (;;) {
    const t = TYPE_RE.exec(v.slice(at));
    if (t === null) return at === 0 ? undefined : v.slice(at);
    at += t[0].length;
    at = skipBrackets(v, at);
    const union = /^\s*[|&]\s*/.exec(v.slice(at));
    if (union === null) return v.slice(at);
    at += union[0].length;
  }
}

function skipBrackets(v: string, at: number): number {
  if (v[at] !== "[" && v[at] !== "<") return at;
  let depth = 0;
  for (let i = at; i < v.length; i++) {
    if (v[i] === "[" || v[i] === "<") depth++;
    else if (v[i] === "]" || v[i] === ">") depth--;
    if (depth === 0) return i + 1;
  }
  return v.length;
}

export function isCodeValue(rest: string, op: Operator, weak = false, env = false): boolean {
  return assignedLiteral(rest, op, weak, env) === undefined;
}

function literalText(v: string, weak: boolean, env: boolean): string | undefined {
  const q = QUOTE_RE.exec(v);
  if (q) {
    const content = quoted(v, q[0].length, q[1]);
    if (INERT_CONTENT_RE.test(content) || fieldName(content)) return undefined;
    if (weak && (content.length < 3 || WEAK_NAME_RE.test(content))) return undefined;
    return content;
  }
  const word = /^\S+/.exec(v)?.[0] ?? v;
  if (RANDOM_WORD_RE.test(word) ? NOT_CODE_RE.test(v) : env ? ENV_CODE_RE.test(v) : CODE_RE.test(v) || VARIABLE_RE.test(v)) return undefined;
  if (fieldName(word.replace(/[,;]$/, ""))) return undefined;
  return v;
}

function fieldName(s: string): boolean {
  return FIELD_NAME_RE.test(s);
}

/** To the end if unterminated. */
export function quoted(v: string, from: number, quote: string): string {
  for (let i = from; i < v.length; i++) {
    if (v[i] === "\\") i++;
    else if (v[i] === quote) return v.slice(from, i);
  }
  return v.slice(from);
}

export function looksRandom(s: string): boolean {
  return s.length >= 12 && !/\s/.test(s) && /[A-Za-z]/.test(s) && /\d/.test(s);
}
