/**
 * Text vx puts into an agent's terminal is data, never keystrokes (issue 15). A terminal paste is
 * the text between `ESC[200~` and `ESC[201~`: an `ESC[201~` inside it ends the paste early and the
 * rest arrives as typed keys (`\r` submits, `!cmd` runs a shell in Claude Code and Pi, `^C^C`
 * quits). So every text bound for a terminal passes through `terminalText` at the doors that
 * reach one (`TmuxClient.paste`, herdr's `agent prompt`, `codex queue`): line endings become `\n`
 * and every other control character is dropped.
 *
 * Dropped rather than refused: a prompt with a stray control character (a pasted colour code, a
 * form feed) is still what its author meant to send, and none of them has a meaning a harness's
 * input box could take as text. The commands that take a prompt say when they cleaned one
 * (`controlNote`), so nothing is changed silently.
 */

// C0 except tab and newline (CR is handled first), DEL, and C1 (U+0080..U+009F, where U+009B is
// the one-character CSI some parsers still honour).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this regex's job
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` safe to paste or type: CRLF and lone CR become LF; other controls but tab are removed. */
export function terminalText(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL, "");
}

/** How many characters `terminalText` removes from `text` (a CR it turns into LF is not counted). */
export function controlCount(text: string): number {
  return text.replace(/\r\n?/g, "\n").match(CONTROL)?.length ?? 0;
}

/** The one stderr line a command prints when `text` (named by `what`) had controls removed; undefined when none. */
export function controlNote(text: string, what: string): string | undefined {
  const n = controlCount(text);
  if (n === 0) return undefined;
  return `vx: ${what} held ${n} control character${n === 1 ? "" : "s"} (escape sequences, terminal codes); ${n === 1 ? "it was" : "they were"} removed before sending\n`;
}
