// Text vx puts into a terminal is data, never keystrokes: an `ESC[201~` inside a paste would end it and the rest arrive as typed
// keys (`\r` submits). Controls are dropped, not refused (the prompt is still what its author meant); `controlNote` says when.

// C0 but tab and newline (CR is handled first), DEL, and C1 (U+009B is a one-character CSI some parsers honour).
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
