/**
 * What a hook-less commander's screen says, by its harness's own texts (its module's
 * `commander.tmuxCommander` rules, HRN-01): whether a turn runs, and whether its input line holds
 * anything a person typed. The sentinel reads it before typing a wake, in a plain tmux pane
 * (CMDR-10) and in a herdr pane (CMDR-08), where herdr's `idle` says nothing of a draft.
 */
import { HARNESSES, type HarnessName } from "../harnesses";
import type { TmuxCommanderRule } from "../harnesses/types";
import { type Clock, scaled } from "../time";
import { type PaneKeys, enterWhileUnsent } from "./unsent";

export type ScreenState = { idle: boolean; inputEmpty: boolean };

/**
 * Pure: whether the harness is idle (no busy text on screen) and its input box holds nothing the
 * person typed. The box is the last run of rows starting with one of the harness's prompt marks,
 * less its `trailerRows` (OpenCode's agent row); it is empty when every row's rest is. A harness
 * without these rules reads as busy: it is never typed into.
 */
export function screenState(harness: HarnessName, screen: string): ScreenState {
  const rule = HARNESSES[harness].commander.tmuxCommander;
  if (!rule) return { idle: false, inputEmpty: false };
  const typed = inputRows(rule, screen);
  return { idle: !rule.busy.test(screen), inputEmpty: typed.length > 0 && typed.every((t) => rule.emptyInput.test(t)) };
}

/** The rest of each row of the input box (after its mark, trimmed); empty when no box shows. */
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

/** The looks at the screen after a paste, one every RESEND_POLLS polls. */
const RESEND_POLLS = 5;

/**
 * After a wake was typed, for a harness that can lose its Enter (its `unsent`): Enter again while
 * the wake still sits alone in the idle commander's input box, judged against `before`, the
 * screen read just before it was typed (`enterWhileUnsent`), until the readiness wait runs out.
 */
export async function resubmitWake(at: { term: PaneKeys; pane: string; clock: Clock; env: Record<string, string | undefined> }, harness: HarnessName, before: string, text: string): Promise<void> {
  const unsent = HARNESSES[harness].unsent;
  const rule = HARNESSES[harness].commander.tmuxCommander;
  if (!unsent || !rule) return;
  const pollMs = scaled("trustPoll", at.env) * RESEND_POLLS;
  await enterWhileUnsent({ ...at, pollMs, holds: (screen) => unsent.test(screen) && !rule.busy.test(screen) }, before, text);
}
