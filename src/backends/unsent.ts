/**
 * Whether a paste's Enter was lost (a harness's `unsent`: Gemini CLI 0.61 turns an Enter within
 * 40 ms of a paste into a newline, and was seen dropping one). Enter is pressed again only when
 * this says so, because an Enter in the wrong place is a keystroke nobody meant: it sends a
 * person's draft or picks a dialog's option. So it is judged against the screen read just before
 * the paste: the screen may have changed only where the input box is (the lines above and below
 * it the same), and that changed part must hold exactly the pasted text (the mark and the box's
 * drawing aside) or the harness's collapsed `[Pasted Text: N lines]`. A turn that started, an
 * echo of an earlier prompt, a dialog, a person's extra keys: each changes more, or other text,
 * and gets no Enter.
 */
import { terminalText } from "../terminal-text";

/** Whitespace, box drawing (U+2500-U+257F) and the input marks harnesses draw. */
const DRAWING = /[\s\u2500-\u257f>*❯│]/g;
const COLLAPSED = /^\[PastedText:\d+(?:lines?|chars?)\]$/;

const rows = (screen: string) => {
  const lines = screen.split("\n").map((l) => l.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
};
const squeeze = (text: string) => text.replace(DRAWING, "");

/** Pure: the screen after a paste shows the pasted text still sitting alone in the input box. */
export function pasteLeftUnsent(before: string, after: string, text: string): boolean {
  const a = rows(before);
  const b = rows(after);
  let top = 0;
  while (top < a.length && top < b.length && a[top] === b[top]) top++;
  let bottom = 0;
  while (bottom < a.length - top && bottom < b.length - top && a[a.length - 1 - bottom] === b[b.length - 1 - bottom]) bottom++;
  // What was there before is the empty box: one line at most (its mark and placeholder).
  if (a.length - bottom - top > 1) return false;
  const now = squeeze(b.slice(top, b.length - bottom).join(""));
  if (now === "") return false;
  return now === squeeze(terminalText(text)) || COLLAPSED.test(now);
}
