/**
 * Cookie values (RED-07): a cookie carries a session, so every value is a credential wherever it is
 * printed (headers, curl, jar lines, maps, HAR entries). Names and Set-Cookie attributes stay readable.
 */
import { SECRET, type Span, spliceSecrets } from "./placeholders";

// A quote before the name closes the region (`-H 'Cookie: a=b' url`); a quoted name then `,` is a header
// set by a call (`req.Header.Set("Cookie", "a=b")`).
const HEADER_RE = /(?<![A-Za-z0-9_-])(["']?)(?:set-)?cookie2?["']?\s*(:|=|,)(?!=)\s*(["']?)/gi;
const ATTRIBUTES = new Set(["path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority", "partitioned", "version", "comment"]);
// A comma that starts another cookie (`a=1; Path=/, b=2`), not the one inside `Expires=Wed, 21 Oct`.
const NEXT_PAIR_RE = /^\s*[^\s=;,"']+=/;
const NAME_END = new Set(["=", ";", ",", " ", "\t", '"', "'"]);
// A reference or placeholder (`sid=${token}` in code or docs).
const INERT_RE = /^(?:\$\{[^}]*\}|\$[A-Za-z_]\w*|\{\{[^}]*\}\}|<[^<>]*>|\*{3,}|[xX]{3,}|\.\.\.)$/;

// Without `=` the argument names a cookie file.
const CURL_RE = /(?<=\s)(?:-b|--cookie)(?:\s+|=)(["']?)(?=[^\s"'=;]+=)/g;
const HTTP_CLIENT_RE = /\b(?:curl|https?|xh)\b/;
// curl -v: `* Added cookie sid="v" for domain …`.
const CURL_VERBOSE_RE = /(\b(?:Added|Replaced) cookie [^\s=]+=")([^"]*)"/g;
// Netscape jar line, tabs or (as a terminal shows them) spaces.
const JAR_RE = /^(\s*(?:#HttpOnly_)?[^\s#]\S*\s+(?:TRUE|FALSE)\s+\S+\s+(?:TRUE|FALSE)\s+-?\d+\s+\S+\s+)(\S+)\s*$/;
const MAP_RE = /\bcookies?["']?\s*[:=]\s*\{[^}]*/gi;
const MAP_VALUE_RE = /(["'])[^"']+\1\s*:\s*(["'])([^"']*)\2/g;
const ENTRY_RE = /["']?name["']?\s*:\s*["'][^"']*["']\s*,\s*["']?value["']?\s*:\s*(["'])([^"']*)\1/g;

/** `spaceEnds`: an unquoted value also ends at whitespace (a `cookie=a=b` field of a log line). */
function pairSpans(s: string, start: number, end: number, spaceEnds: boolean, spans: Span[]): void {
  let i = start;
  while (i < end) {
    while (i < end && (s[i] === ";" || s[i] === "," || s[i] === " " || s[i] === "\t")) i++;
    const nameStart = i;
    while (i < end && !NAME_END.has(s[i])) i++;
    const name = s.slice(nameStart, i);
    if (s[i] !== "=" || name === "") {
      while (i < end && s[i] !== ";") i++;
      continue;
    }
    i++;
    let from = i;
    let to: number;
    if (s[i] === '"') {
      from = i + 1;
      to = s.indexOf('"', from);
      if (to === -1 || to > end) to = end;
      i = to + 1;
    } else {
      to = i;
      while (to < end && s[to] !== ";" && !(spaceEnds && /\s/.test(s[to])) && !(s[to] === "," && NEXT_PAIR_RE.test(s.slice(to + 1, end)))) to++;
      i = to;
      while (to > from && /\s/.test(s[to - 1])) to--;
    }
    const value = s.slice(from, to);
    if (value !== "" && !ATTRIBUTES.has(name.toLowerCase()) && !value.startsWith(SECRET) && !INERT_RE.test(value)) spans.push([from, to]);
    if (spaceEnds && i < end && /\s/.test(s[i])) return;
  }
}

function closing(s: string, from: number, quote: string): number {
  for (let i = from; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === quote) return i;
  }
  return s.length;
}

/** Two rules may find one value. */
function merged(spans: Span[]): Span[] {
  spans.sort((a, b) => a[0] - b[0]);
  const out: Span[] = [];
  for (const sp of spans) {
    const last = out[out.length - 1];
    if (last !== undefined && sp[0] < last[1]) last[1] = Math.max(last[1], sp[1]);
    else out.push([sp[0], sp[1]]);
  }
  return out;
}

/** `words`, `jar`: what the scan saw on the line. */
export function replaceCookies(line: string, words: boolean, jar: boolean): string {
  const entry = jar ? JAR_RE.exec(line) : null;
  if (entry && !entry[2].startsWith(SECRET)) return entry[1] + SECRET + line.slice(entry[1].length + entry[2].length);
  const named = words && /cookie/i.test(line);
  const curl = (line.includes(" -b") || line.includes("--cookie")) && HTTP_CLIENT_RE.test(line);
  if (!named && !curl) return line;
  const spans: Span[] = [];
  if (named) {
    HEADER_RE.lastIndex = 0;
    for (let m = HEADER_RE.exec(line); m !== null; m = HEADER_RE.exec(line)) {
      if (m[2] === "," && !(m[1] && m[3])) continue;
      const start = m.index + m[0].length;
      const quote = m[3] || m[1];
      pairSpans(line, start, quote ? closing(line, start, quote) : line.length, m[2] === "=" && !quote, spans);
    }
  }
  if (curl) {
    CURL_RE.lastIndex = 0;
    for (let m = CURL_RE.exec(line); m !== null; m = CURL_RE.exec(line)) {
      const start = m.index + m[0].length;
      pairSpans(line, start, m[1] ? closing(line, start, m[1]) : line.length, !m[1], spans);
    }
  }
  let s = spliceSecrets(line, merged(spans));
  if (!named) return s;
  if (s.includes(" cookie ")) s = s.replace(CURL_VERBOSE_RE, (m, head: string, v: string) => (v.startsWith(SECRET) || v === "" ? m : `${head}${SECRET}"`));
  if (s.includes("{")) {
    const value = (m: string, q: string, v: string) => (v === "" || v.startsWith(SECRET) ? m : m.slice(0, m.length - v.length - 1) + SECRET + q);
    s = s.replace(MAP_RE, (map) => map.replace(MAP_VALUE_RE, (m, _q: string, q: string, v: string) => value(m, q, v)));
    s = s.replace(ENTRY_RE, (m, q: string, v: string) => value(m, q, v));
  }
  return s;
}
