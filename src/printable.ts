/**
 * Text from files and arguments made safe to print to a terminal: control characters (ESC and the
 * rest of C0 except newline and tab, DEL, and C1) are shown as `\xNN` escapes, so a prompt, a
 * soldier's question or an id can never move the cursor, recolour, retitle or clear the screen.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this regex's job
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** `printable` for text that must stay on its line (a name, a field): a newline too becomes `\x0a`. */
export function printableLine(text: string): string {
  return printable(text).replaceAll("\n", "\\x0a");
}

/**
 * One word of a line (an argv element, a file name) as a person reads it: plain words bare,
 * anything else JSON-quoted, so a space, a quote or a newline in it can never split or fake a line.
 */
export function quotedWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : printable(JSON.stringify(text));
}
