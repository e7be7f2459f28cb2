/**
 * Whether a paste's Enter was lost (a harness's `unsent`: Gemini CLI 0.61 turns an Enter within
 * 40 ms of a paste into a newline, and was seen dropping one). Enter is pressed again only when
 * this says so, because an Enter in the wrong place is a keystroke nobody meant: it sends a
 * person's draft or picks a dialog's option. So the box is found (the last row that starts with a
 * prompt mark, and the rows below it while they spell the pasted text) and it must hold exactly
 * the pasted text (the mark and the box's drawing aside) or the harness's collapsed `[Pasted Text:
 * N lines]`; and it must sit where the screen read just before the paste had its frame: the row
 * above it was on that screen, and so was the row below it (or one starting the same: a footer
 * gains columns). An echo of the prompt under history and above a dialog or a turn's spinner, a
 * new empty box, a person's extra keys: none of these gets an Enter.
 */
import { terminalText } from "../terminal-text";
import { type Clock, deadlineIn, scaled } from "../time";
import type { TmuxClient } from "./tmux/client";

/** Whitespace, box drawing (U+2500-U+257F) and the input marks harnesses draw. */
const DRAWING = /[\s\u2500-\u257f>*❯│]/g;
const COLLAPSED = /^\[PastedText:\d+(?:lines?|chars?)\]$/;

/** The screen's non-blank rows, trimmed. */
const rows = (screen: string) =>
  screen
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
const squeeze = (text: string) => text.replace(DRAWING, "");

/** An input box's first row: a prompt mark, then a space. */
const MARK_ROW = /^[>*❯]\s/;
/** Rows are taken for the same when their first characters (drawing aside) agree: a footer gains columns as it learns more. */
const SAME_START = 16;

/**
 * The rows holding the paste: the lowest row that starts with a prompt mark (the input box is the
 * last thing a harness draws above its footer) and the rows below it, when they spell the pasted
 * text exactly. Only that row: an echo higher up, framed by history rows that repeat ("✦ ok"),
 * could pass for the box while a person types a draft below it. Undefined otherwise (the box's
 * placeholder, a draft, extra keys; a text with a `* ` bullet line, whose Enter then stays lost).
 */
function boxHolds(after: string[], want: string): { from: number; to: number } | undefined {
  let from = after.length - 1;
  while (from >= 0 && !MARK_ROW.test(after[from]!)) from--;
  if (from < 0) return undefined;
  if (COLLAPSED.test(squeeze(after[from]!))) return { from, to: from + 1 };
  let held = "";
  for (let i = from; i < after.length && want.startsWith(held); i++) {
    held += squeeze(after[i]!);
    if (held === want) return { from, to: i + 1 };
  }
  return undefined;
}

/** Pure: the screen after a paste shows the pasted text still sitting alone in the input box. */
export function pasteLeftUnsent(before: string, after: string, text: string): boolean {
  const a = rows(before);
  const b = rows(after);
  const box = boxHolds(b, squeeze(terminalText(text)));
  if (!box) return false;
  // The box sits where the screen had its frame: the row above and the row below were there before
  // (an echo of the prompt sits under history, above a dialog or a turn's spinner: never the box).
  const starts = new Set(a.map((r) => squeeze(r).slice(0, SAME_START)));
  const was = (row: string | undefined) => row !== undefined && starts.has(squeeze(row).slice(0, SAME_START));
  const above = b[box.from - 1];
  const below = b[box.to];
  return above !== undefined && a.includes(above) && (below === undefined || was(below));
}

/** Enters pressed again at most after a paste whose Enter was lost. */
export const MAX_RESENDS = 3;

/** A terminal's two calls the watch makes: the pane's screen, and keys (tmux's names: `Enter`). */
export type PaneKeys = Pick<TmuxClient, "capture" | "sendKeys">;

/** What watching a paste needs: the pane, the clock, how often to look, and the harness's own signs. */
export type PasteWatch = {
  term: PaneKeys;
  pane: string;
  clock: Clock;
  env: Record<string, string | undefined>;
  /** Between two looks at the screen. */
  pollMs: number;
  /** The harness's own sign that its box holds text, and for a commander that no turn runs. */
  holds(screen: string): boolean;
};

/**
 * After a paste and its Enter: Enter again while the pasted text still sits alone in the input box
 * (`pasteLeftUnsent`, against `before`, the screen read just before the paste), at most
 * MAX_RESENDS times and until the readiness wait runs out. Two looks that find the screen moved on
 * without it (the turn started, a dialog) end the watch. A screen still exactly as it was before is
 * the paste not drawn yet, not a miss: a loaded machine's Gemini CLI drew a wake more than two
 * looks late, then kept it unsent (CI). Returns the Enters pressed.
 */
export async function enterWhileUnsent(w: PasteWatch, before: string, text: string): Promise<number> {
  const deadline = deadlineIn(w.clock, scaled("harnessReady", w.env));
  const undrawn = squeeze(before);
  let misses = 0;
  let presses = 0;
  while (misses < 2 && presses < MAX_RESENDS && !deadline.passed()) {
    await w.clock.sleep(w.pollMs);
    const screen = await w.term.capture(w.pane).catch(() => undefined);
    if (screen !== undefined && presses === 0 && squeeze(screen) === undrawn) continue;
    if (screen === undefined || !w.holds(screen) || !pasteLeftUnsent(before, screen, text)) {
      misses++;
      continue;
    }
    misses = 0;
    presses++;
    await w.term.sendKeys(w.pane, ["Enter"]);
  }
  return presses;
}
