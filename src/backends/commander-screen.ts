/** A hook-less commander's screen by its harness's rules, read before typing a wake (CMDR-08, CMDR-10): herdr's `idle` misses drafts. */
import { HARNESSES, type HarnessName } from "../harnesses";
import type { TmuxCommanderRule } from "../harnesses/types";
import { type Clock, scaled } from "../time";
import { type PaneKeys, enterWhileUnsent } from "./unsent";

export type ScreenState = { idle: boolean; inputEmpty: boolean };

/** The input box is the last run of marked rows less `trailerRows`. A harness without rules reads as busy: never typed into. */
export function screenState(harness: HarnessName, screen: string): ScreenState {
  const rule = HARNESSES[harness].commander.tmuxCommander;
  if (!rule) return { idle: false, inputEmpty: false };
  const typed = inputRows(rule, screen);
  return { idle: !rule.busy.test(screen), inputEmpty: typed.length > 0 && typed.every((t) => rule.emptyInput.test(t)) };
}

function inputRows(rule: TmuxCommanderRule, screen: string): string[] {
  const marks = typeof rule.mark === "string" ? [rule.mark] : rule.mark;
  let run: string[] = [];
  let last: string[] = [];
  for (const line of screen.split("\n").map((l) => l.trim())) {
    const mark = marks.find((m) => line.startsWith(m));
    if (mark === undefined) {
      run = [];
      continue;
    }
    run.push(line.slice(mark.length).trim());
    last = run;
  }
  return last.slice(0, last.length - (rule.trailerRows ?? 0));
}

/** Why a wake was not typed, from the screen read just before: undefined when it may be. */
export function notTypedBecause(state: ScreenState | undefined): string | undefined {
  if (!state) return "its screen could not be read";
  if (!state.idle) return "busy";
  return state.inputEmpty ? undefined : "holding unsent text in its input line";
}

const RESEND_POLLS = 5;

/** For a harness that can lose its Enter: Enter again while the wake sits alone in the idle box, until the readiness wait ends. */
export async function resubmitWake(at: { term: PaneKeys; pane: string; clock: Clock; env: Record<string, string | undefined> }, harness: HarnessName, before: string, text: string): Promise<void> {
  const unsent = HARNESSES[harness].unsent;
  const rule = HARNESSES[harness].commander.tmuxCommander;
  if (!unsent || !rule) return;
  const pollMs = scaled("trustPoll", at.env) * RESEND_POLLS;
  await enterWhileUnsent({ ...at, pollMs, holds: (screen) => unsent.test(screen) && !rule.busy.test(screen) }, before, text);
}
