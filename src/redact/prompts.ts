/**
 * A password after its word with no `=` or `:` right after it (RED-04, issue 25): a prompt with the
 * answer on its line (`Password for 'https://bob@git.example.com': v`, `[sudo] password for bob: v`,
 * `Enter passphrase for key '…': v`, `Password (typing will be hidden): v`), and a value after
 * spaces (`password v` in a `.netrc` fragment, `login bob password v`, `the password is v`), where
 * it must look random: a Heroku API key (a UUID) is the common case.
 */
import { SECRET } from "./placeholders";
import { assignedLiteral, looksRandom } from "./values";

const WORD = "(?<![A-Za-z0-9_])(?:password|passwd|passphrase|pass phrase)";
// The prompt's own text runs to its `:`; quoted parts (a URL, a key's path) may hold colons.
const PROMPT_RE = new RegExp(`^(.*?${WORD}(?:\\s*\\([^)]*\\)|\\s+(?:for|of)\\s(?:'[^']*'|"[^"]*"|[^:'"])*)?\\s*:\\s+)(\\S+)\\s*$`, "i");
const AFTER_SPACE_RE = new RegExp(`(${WORD}\\s+(?:(?:is|was)\\s+)?)([^\\s"'=:]+)`, "gi");
// A plain word answers no prompt with a secret (`Password for bob: incorrect`), and an answer
// starts with a letter, digit or symbol, not with the quote that closes a prompt in code
// (`\`Password for ${host}: \``).
const WORD_RE = /^(?:[A-Za-z][a-z]*|[A-Z]+)[.!]?$/;
const ANSWER_RE = /^[^"'`\s][^\s]{3,}$/;
const HINT_RE = /pass(?:wd|word|phrase| phrase)\b/i;

/** Replaces a password after a prompt or after spaces in `line`. */
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
