/**
 * Whether a paste's Enter was lost (a harness's `unsent`: Gemini CLI 0.61 turns an Enter within
 * 40 ms of a paste into a newline, and was seen dropping one). Enter is pressed again only when
 * this says so, because an Enter in the wrong place is a keystroke nobody meant: it sends a
 * person's draft or picks a dialog's option. So it is judged against the screen read just before
 * the paste, row by row (blank rows aside): what came since must be exactly the pasted text (the
 * mark and the box's drawing aside) or the harness's collapsed `[Pasted Text: N lines]`, and
 * nothing else; what went (the empty box, hints and tips a typed box hides: Gemini CLI's `? for
 * shortcuts`) says nothing. A turn that started, an echo of an earlier prompt above a dialog, a
 * person's extra keys: each brings other text, and gets no Enter.
 */
import { terminalText } from "../terminal-text";

/** Whitespace, box drawing (U+2500-U+257F) and the input marks harnesses draw. */
const DRAWING = /[\s\u2500-\u257f>*❯│]/g;
const COLLAPSED = /^\[PastedText:\d+(?:lines?|chars?)\]$/;

/** The screen's non-blank rows, trimmed. */
const rows = (screen: string) => screen.split("\n").map((l) => l.trim()).filter((l) => l !== "");
const squeeze = (text: string) => text.replace(DRAWING, "");

/** The rows only `a` has and the rows only `b` has, by a longest common subsequence. */
function rowDiff(a: string[], b: string[]): { gone: string[]; added: string[] } {
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const gone: string[] = [];
  const added: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) added.push(b[j++]!);
    else gone.push(a[i++]!);
  }
  return { gone, added };
}

/** Pure: the screen after a paste shows the pasted text still sitting alone in the input box. */
export function pasteLeftUnsent(before: string, after: string, text: string): boolean {
  // What went (the empty box, hints and tips a typed box hides) says nothing; what came must be the text alone.
  const { added } = rowDiff(rows(before), rows(after));
  const now = squeeze(added.join(""));
  if (now === "") return false;
  return now === squeeze(terminalText(text)) || COLLAPSED.test(now);
}
