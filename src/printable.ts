// Control characters (C0 but newline and tab, DEL, C1) are shown as `\xNN`, so printed text can never move the cursor or clear the screen.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this regex's job
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** `printable` for text that must stay on its line (a name, a field): a newline too becomes `\x0a`. */
export function printableLine(text: string): string {
  return printable(text).replaceAll("\n", "\\x0a");
}

/** One word as a person reads it: plain words bare, else JSON-quoted so a space, quote or newline can never split or fake a line. */
export function quotedWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : printable(JSON.stringify(text));
}
