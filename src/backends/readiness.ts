/** Readiness on either terminal (TMX-02, HRD-06): the harness's own ready text, trust dialogs answered; no backend's "ready" is trusted. */
import { type HarnessName, harnessOf } from "../harnesses";
import { printable } from "../printable";
import { redact } from "../redact";
import { deadlineIn, scaled } from "../time";
import { TRUST_RE, type Timing } from "./types";

const OPTION_RE = /^\s*(?:[❯›>]\s*)?([1-9])[.)]\s+(\S.*)$/u;
// Claude Code's "Yes, I trust this folder", Codex's "Trust and continue".
const CURSOR_ROW_RE = /^(\s*)[❯›>](\s+)(\S.*)$/u;
const ACCEPT_RE = /^(?:[1-9][.)]\s+)?(?:yes|trust)\b/i;

/** The digit of the first option whose text starts with `Yes`; undefined when there is none. */
export function trustOptionDigit(screen: string): string | undefined {
  for (const line of screen.split("\n")) {
    const m = OPTION_RE.exec(line);
    if (m && m[2]!.startsWith("Yes")) return m[1];
  }
  return undefined;
}

/** Enter on the accepting option or the arrow toward it (Claude Code's rows have no digits, Codex ignores them); no cursor: the digit. */
export function trustKey(screen: string): string | undefined {
  const lines = screen.split("\n").map((l) => l.trimEnd());
  const at = lines.findIndex((l) => CURSOR_ROW_RE.test(l));
  if (at === -1) return trustOptionDigit(screen);
  const m = CURSOR_ROW_RE.exec(lines[at]!)!;
  // The list: the cursor's row and the rows around it whose text starts in the same column.
  const column = m[1]!.length + 1 + m[2]!.length;
  const option = (l: string | undefined) => l !== undefined && l.length > column && l.slice(0, column).trim() === "" && l[column] !== " ";
  let first = at;
  while (option(lines[first - 1])) first--;
  let end = at + 1;
  while (option(lines[end])) end++;
  for (let i = first; i < end; i++) {
    if (!ACCEPT_RE.test(i === at ? m[3]! : lines[i]!.slice(column))) continue;
    return i === at ? "Enter" : i > at ? "Down" : "Up";
  }
  return undefined;
}

// A key pressed while the dialog is still drawn can be lost: it goes again after this many quiet polls.
export const RESEND_POLLS = 5;

/** The last line a harness printed before it exited, redacted and escaped for one error line. */
export function lastWords(screen: string): string {
  const lines = screen
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("Pane is dead"));
  const line = lines.pop() ?? "";
  return printable(redact(line)).slice(0, 200);
}

export type Look = { screen: string } | { gone: string };

export type ReadyPane = {
  /** The screen now; `last` is the previous one seen alive (for the words of a pane that died). */
  look(last: string | undefined): Promise<Look>;
  press(key: string): Promise<void>;
};

export type Readiness =
  | { kind: "ready" }
  /** Not ready in time; `screen` is the last one seen. */
  | { kind: "timeout"; screen?: string }
  | { kind: "gone"; last: string };

/**
 * A harness with `startReport`: after its ready screen, waits for its start report (`reported`), then for the screen to hold
 * still for RESEND_POLLS polls, so the prompt goes once what the start draws (a resumed conversation) is drawn. Bounded:
 * past `limitMs`, or with the pane gone, the caller goes on as before (its own checks tell a gone pane).
 */
export async function waitStartReport(pane: ReadyPane, harness: HarnessName, reported: () => boolean, timing: Timing, limitMs: number): Promise<void> {
  if (!harnessOf(harness).startReport) return;
  const { clock, env } = timing;
  const deadline = deadlineIn(clock, limitMs);
  let last: string | undefined;
  let still = 0;
  while (!deadline.passed()) {
    if (reported()) {
      const look = await pane.look(last);
      if ("gone" in look) return;
      still = look.screen === last ? still + 1 : 0;
      if (still >= RESEND_POLLS) return;
      last = look.screen;
    }
    await clock.sleep(scaled("trustPoll", env));
  }
}

/** Whether `screen` shows a folder-trust dialog (a screen vx answers, never types into). */
export function showsTrustDialog(screen: string): boolean {
  return TRUST_RE.test(screen);
}

/**
 * Only a "still" harness counts a screen that stops changing: others show still screens before their dialog, where a prompt is
 * lost. A key goes only on a screen seen twice (no redraw in flight), once per redraw; a cursor key waits longer, as one slow,
 * not lost, would move past "Yes" onto "No, exit".
 */
export async function waitReady(pane: ReadyPane, harness: HarnessName, timing: Timing, limitMs: number): Promise<Readiness> {
  const { clock, env } = timing;
  const ready = harnessOf(harness).ready;
  const deadline = deadlineIn(clock, limitMs);
  let last: string | undefined;
  // The screen the last key was pressed on, and how many polls have shown it since.
  let keyed: { screen: string; polls: number } | undefined;
  while (!deadline.passed()) {
    const look = await pane.look(last);
    if ("gone" in look) return { kind: "gone", last: look.gone };
    const { screen } = look;
    if (showsTrustDialog(screen)) {
      const key = trustKey(screen);
      const fresh = !keyed || keyed.screen !== screen;
      const quiet = keyed ? ++keyed.polls : 0;
      const patience = key === "Up" || key === "Down" ? RESEND_POLLS * 4 : RESEND_POLLS;
      if (key && screen === last && (fresh || quiet >= patience)) {
        await pane.press(key);
        keyed = { screen, polls: 0 };
      }
    } else if (ready === "still" ? screen.trim() !== "" && screen === last : ready.test(screen)) {
      return { kind: "ready" };
    }
    last = screen;
    await clock.sleep(scaled("trustPoll", env) * 2);
  }
  return { kind: "timeout", screen: last };
}
