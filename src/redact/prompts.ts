/**
 * A password after its word with no `=` or `:` right after it (RED-04): a prompt answered on its line
 * (`[sudo] password for bob: v`), or a value after spaces (`login bob password v`), which must look random.
 */
import { SECRET } from "./placeholders";
import { assignedLiteral, looksRandom } from "./values";

const WORD = "(?<![A-Za-z0-9_])(?:password|passwd|passphrase|pass phrase)";
// The prompt's own text runs to its `:`; quoted parts (a URL, a key's path) may hold colons.
const PROMPT_RE = new RegExp(`^(.*?${WORD}(?:\\s*\\([^)]*\\)|\\s+(?:for|of)\\s(?:'[^']*'|"[^"]*"|[^:'"])*)?\\s*:\\s+)(\\S+)\\s*$`, "i");
const AFTER_SPACE_RE = new RegExp(`(${WORD}\\s+(?:(?:is|was)\\s+)?)([^\\s"'=:]+)`, "gi");
// A plain word is no secret (`Password for bob: incorrect`); a quote closes a prompt in code, not an answer.
const WORD_RE = /^(?:[A-Za-z][a-z]*|[A-Z]+)[.!]?$/;
const ANSWER_RE = /^[^"'`\s][^\s]{3,}$/;
const HINT_RE = /pass(?:wd|word|phrase| phrase)\b/i;

export function replacePrompts(line: string): string {
  if (!HINT_RE.test(line)) return line;
  const prompt = PROMPT_RE.exec(line);
  if (prompt) {
    const v = prompt[2];
    if (ANSWER_RE.test(v) && !v.startsWith(SECRET) && !WORD_RE.test(v) && assignedLiteral(v, "assign") !== undefined) {
      return prompt[1] + SECRET + line.slice(prompt[1].length + v.length);
    }
  }
  return line.replace(AFTER_SPACE_RE, (m, head: string, v: string) => (looksRandom(v) ? head + SECRET : m));
}
