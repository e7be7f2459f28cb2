/**
 * Whether a paste's Enter was lost. A stray Enter sends a person's draft or picks a dialog option, so Enter goes again only
 * when the box holds exactly the paste, where the screen before the paste had its frame.
 */
import { terminalText } from "../terminal-text";
import { type Clock, deadlineIn, scaled } from "../time";
import type { TmuxClient } from "./tmux/client";

/** Whitespace, box drawing (U+2500-U+257F) and the input marks harnesses draw. */
const DRAWING = /[\s\u2500-\u257f>*❯│]/g;
const COLLAPSED = /^\[PastedText:\d+(?:lines?|chars?)\]$/;

const rows = (screen: string) =>
  screen
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
const squeeze = (text: string) => text.replace(DRAWING, "");

const MARK_ROW = /^[>*❯]\s/;
/** Rows are taken for the same when their first characters (drawing aside) agree: a footer gains columns as it learns more. */
const SAME_START = 16;

/** The lowest marked row and those below spelling the paste: an echo higher up, amid repeated history, could pass for the box. */
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
  // An echo of the prompt sits under history, above a dialog or spinner: never where the frame was.
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

export type PasteWatch = {
  term: PaneKeys;
  pane: string;
  clock: Clock;
  env: Record<string, string | undefined>;
  pollMs: number;
  /** The harness's own sign that its box holds text, and for a commander that no turn runs. */
  holds(screen: string): boolean;
};

/** Two looks without the paste end the watch; a screen unchanged since `before` is the paste not drawn yet, not a miss. */
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
