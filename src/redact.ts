// Pane redaction (RED-01..08), one stage per kind of secret in src/redact/; redact(redact(x)) === redact(x). It runs on every
// settle's 500 lines, so scan.ts first says which lines each rule must read; rules read a normalised copy of each line (normalise.ts).
import { namesCredentialEntry, replaceAssignments, replaceEntryValue } from "./redact/assign";
import { keyBlockAt } from "./redact/blocks";
import { replaceCookies } from "./redact/cookies";
import { replaceCommandLine, replaceNetrc } from "./redact/cli";
import { dropsLine } from "./redact/lines";
import { PRIVATE_KEY_BLOCK, SECRET, SENSITIVE_LINE } from "./redact/placeholders";
import { replaceEncoded } from "./redact/encoded";
import { replacePrompts } from "./redact/prompts";
import { mapBack, normaliseLines } from "./redact/normalise";
import { AWS, BEGIN, FLAG, JAR, NETRC, TOKEN, URL, UUIDS, WORD, scan } from "./redact/scan";
import { UUID_ABOVE_RE, hasAwsKeyId, replaceAwsSecrets, replaceContextUuids, replaceTokens } from "./redact/tokens";
import { replaceUrlSecrets } from "./redact/urls";
import { replaceContinuations } from "./redact/wrap";

export { PRIVATE_KEY_BLOCK, SECRET, SENSITIVE_LINE };

// A YAML block scalar under a credential name (`password: |`): its indented lines are the secret.
const SECRET_SCALAR_RE = /^(\s*)(?:-\s+)?["']?[\w.-]*(?:password|passwd|passphrase|secret|token|key|pass|auth|credentials?)["']?\s*:\s*[|>][-+0-9]*\s*$/i;

/** Redacts without mangling ordinary words (RED-05); lines are kept, but a private key block collapses to one. */
export function redact(text: string): string {
  return redactAt(text, 0);
}

// Decoded base64 is redacted by the same rules, one level deep: text encoded twice is left alone.
function redactAt(text: string, depth: number): string {
  if (text === "") return text;
  const lines = text.split("\n");
  const copies = normaliseLines(text, lines);
  if (copies === undefined) return redactLines(text, lines, depth).out.join("\n");
  const copied = lines.map((l, i) => copies[i]?.text ?? l);
  const { out, src } = redactLines(copied.join("\n"), copied, depth);
  return out
    .map((o, k) => {
      const copy = copies[src[k]];
      return copy === undefined ? o : mapBack(lines[src[k]], copy, o);
    })
    .join("\n");
}

/** The redacted lines of `text` (split as `lines`), and for each the line of `lines` it came from. */
function redactLines(text: string, lines: string[], depth: number): { out: string[]; src: number[] } {
  const { marks, keyEnd } = scan(text, lines);
  if (depth === 0) replaceEncoded(text, lines, (t) => redactAt(t, depth + 1) !== t);
  const anyCr = text.includes("\r");
  const out: string[] = [];
  const src: number[] = []; // the line of `lines` each line of `out` came from
  let uuidBelow = 0; // lines left in which a bare UUID is a Heroku key printed by a command above
  let awsAbove = false; // an AWS key id on the line above: its secret key may sit on this one
  let netrc = false; // inside a multi-line .netrc entry
  let entryValue = false; // the line above was `- name: DB_PASSWORD`: a `value:` here is the secret
  let scalarIndent = -1; // inside a secret block scalar indented deeper than this
  let bodyScanFrom = keyEnd ? 0 : lines.length; // where to look for a key body whose BEGIN scrolled away
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const bits = marks[i];
    const cr = anyCr && raw.endsWith("\r") ? "\r" : "";
    const line = cr ? raw.slice(0, -1) : raw;
    if (scalarIndent >= 0) {
      const indent = line.length - line.trimStart().length;
      if (line.trim() === "" || indent > scalarIndent) {
        out.push(line.trim() === "" ? raw : line.slice(0, indent) + SECRET + cr);
        src.push(i);
        continue;
      }
      scalarIndent = -1;
    }
    if (bits & BEGIN || i >= bodyScanFrom) {
      const block = keyBlockAt(lines, i, i >= bodyScanFrom);
      if (block !== undefined && "end" in block) {
        out.push(PRIVATE_KEY_BLOCK + cr);
        src.push(i);
        i = block.end;
        awsAbove = netrc = entryValue = false;
        continue;
      }
      if (block !== undefined) bodyScanFrom = block.skipTo;
    }
    if (uuidBelow > 0) uuidBelow--;
    if (bits === 0 && !awsAbove && !netrc && !entryValue && uuidBelow === 0) {
      out.push(raw);
      src.push(i);
      continue;
    }
    const words = (bits & WORD) !== 0;
    const aws = (bits & AWS) !== 0 && hasAwsKeyId(line);
    let s = entryValue ? replaceEntryValue(line) : line;
    if (bits & TOKEN || aws) s = replaceTokens(s);
    if (aws || awsAbove || words) s = replaceAwsSecrets(s, aws || awsAbove);
    if (bits & URL) s = replaceUrlSecrets(s);
    if (bits & (WORD | FLAG | JAR)) s = replaceCookies(s, words, (bits & JAR) !== 0);
    if (bits & UUIDS || uuidBelow > 0) s = replaceContextUuids(s, uuidBelow > 0);
    if (bits & UUIDS && UUID_ABOVE_RE.test(line)) uuidBelow = 5;
    if (bits & (FLAG | WORD)) s = replaceCommandLine(s, words);
    if (words || netrc) {
      s = replacePrompts(replaceAssignments(s));
      const entry = replaceNetrc(s, netrc);
      s = entry.line;
      netrc = entry.inBlock;
      if (dropsLine(s)) s = SENSITIVE_LINE;
      const scalar = SECRET_SCALAR_RE.exec(line);
      if (scalar) scalarIndent = scalar[1].length;
    } else if (bits & NETRC) {
      netrc = replaceNetrc(s, false).inBlock;
    }
    awsAbove = aws;
    entryValue = words && namesCredentialEntry(line);
    out.push(s + cr);
    src.push(i);
  }
  replaceContinuations(lines, out, src);
  return { out, src };
}
