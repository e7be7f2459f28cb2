/** One search of the whole capture per marker, so per-line rules read only the few lines that can match: far cheaper. */
import { opSecretKeyRE, SHAPED_MARKERS, tokenRE } from "./tokens";

/** What a line may hold, as bits. */
export const WORD = 1; // a credential word: the name, command-line and whole-line rules
export const TOKEN = 2; // a provider token, a Telegram token, a base64 PEM: tokens.ts
export const URL = 4; // `://` or a signature parameter: urls.ts
export const FLAG = 8; // ` -` or `\t-`: short flags and `curl -u` (cli.ts)
export const BEGIN = 16; // a BEGIN line or a PuTTY key file: blocks.ts
export const AWS = 32; // an AWS access key id prefix
export const NETRC = 64; // `machine` or `default`
export const UUIDS = 128; // a provider whose keys are bare UUIDs (Heroku, Pinecone)
export const JAR = 256; // `TRUE` or `FALSE`: maybe a cookie jar line (cookies.ts)

// `key` matches `apiKey` and `monkey` alike; the rules sort them out.
const WORDS_RE = /pass|pwd|secret|token|key|auth|credential|bearer|cookie|anthropic|openai|gemini|claude|codex/gi;
// Upper case, so `session` in code stays on the fast path.
const ENV_WORDS_RE = /SESSION|_(?:SK|PAT|PW|CREDS)\b/g;
const UUID_CONTEXT_RE = /heroku|pinecone/gi;
const MARKERS: readonly [string, number][] = [
  ...SHAPED_MARKERS.map((m): [string, number] => [m, TOKEN]),
  [":AA", TOKEN],
  ["LS0tLS1CRUdJTi", TOKEN],
  ["://", URL],
  ["sig=", URL],
  ["ignature=", URL],
  [" -", FLAG],
  ["\t-", FLAG],
  ["BEGIN", BEGIN],
  ["PuTTY-", BEGIN],
  ["Private-Lines", BEGIN],
  ["AKIA", AWS],
  ["ASIA", AWS],
  ["LTAI", AWS],
  ["machine", NETRC],
  ["default", NETRC],
  ["TRUE", JAR],
  ["FALSE", JAR],
];

export type Scan = {
  marks: Uint16Array;
  /** Some line ends a key block, so keyless bodies are worth looking for. */
  keyEnd: boolean;
};

export function scan(text: string, lines: readonly string[]): Scan {
  const marks = new Uint16Array(lines.length);
  const starts = new Int32Array(lines.length);
  for (let i = 0, at = 0; i < lines.length; i++) {
    starts[i] = at;
    at += lines[i].length + 1;
  }
  const mark = (needle: string, bit: number) => {
    for (let p = text.indexOf(needle); p !== -1; ) {
      const i = lineAt(starts, p);
      marks[i] |= bit;
      p = i + 1 < starts.length ? text.indexOf(needle, starts[i + 1]) : -1;
    }
  };
  for (const [needle, bit] of MARKERS) mark(needle, bit);
  // One hit per line is enough.
  const markMatches = (re: RegExp, bit: number) => {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const i = lineAt(starts, m.index);
      marks[i] |= bit;
      if (i + 1 >= starts.length) break;
      re.lastIndex = starts[i + 1];
    }
    re.lastIndex = 0;
  };
  markMatches(WORDS_RE, WORD);
  markMatches(ENV_WORDS_RE, WORD);
  markMatches(UUID_CONTEXT_RE, UUIDS);
  markMatches(tokenRE(), TOKEN);
  markMatches(opSecretKeyRE(), TOKEN);
  const keyEnd = text.includes("PRIVATE KEY") || text.includes("Private-MAC") || text.includes("Private-Hash");
  return { marks, keyEnd };
}

function lineAt(starts: Int32Array, p: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
