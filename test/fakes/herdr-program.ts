// What runs inside a fake pane: the terminal's rows (what `agent read` and `pane read` serve) and
// the scripted programs a harness kind runs (herdr-state.ts ProgramDef), as the real herdr 0.8.2
// showed them (docs/real-clients.md, "The server, compared with the fake").
import { delimiter, join } from "node:path";
import { accessSync, constants } from "node:fs";
import type { FakeState, PaneRec, ProgramDef, ProgramScreen, ReactionStep } from "./herdr-state.ts";

/** herdr types the prompt, then presses Enter 300 ms later (AGENT_PROMPT_SUBMIT_DELAY). */
export const SUBMIT_DELAY_MS = 300;
/** A program herdr finds on its own (typed in a pane) is listed after about this long ... */
export const DETECT_APPEAR_MS = 500;
/** ... and reads `unknown` for about this long before its screen's status. */
export const DETECT_SETTLE_MS = 2500;

export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips terminal escape sequences on purpose
  return text.replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g, "");
}

function splitLines(text: string): string[] {
  if (!text) return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

/**
 * The terminal's rows: the scrollback above the screen, then the screen's `screen_rows` rows. A
 * program that draws its own screen (`visible`) draws from the top row; the rows below stay blank.
 * Plain output (the transcript) fills the screen from the top and scrolls into the scrollback.
 */
export function terminalRows(s: FakeState, pane: PaneRec): { history: string[]; screen: string[] } {
  const rows = s.screen_rows;
  const printed = splitLines(pane.transcript);
  const history = printed.length > rows ? printed.slice(0, printed.length - rows) : [];
  const screen = pane.visible !== null ? splitLines(pane.visible) : printed.slice(history.length);
  while (screen.length < rows) screen.push("");
  return { history, screen: screen.map((r) => r.trimEnd()) };
}

function dropTrailingBlank(rows: string[]): string[] {
  let end = rows.length;
  while (end > 0 && stripAnsi(rows[end - 1]!).trim() === "") end--;
  return rows.slice(0, end);
}

/**
 * `agent read` / `pane read` as herdr 0.8.2 answers: `visible` is the screen without its trailing
 * blank rows, then its last N lines; `recent` and `recent-unwrapped` take the bottom N terminal rows
 * (80 by default, at most 1000), blank rows included, and drop the blank ones at the end, so a
 * screen drawn at the top of a tall pane can read as nothing. `visible` and `recent` end in a newline.
 */
export function readPaneText(s: FakeState, pane: PaneRec, source: string, lines: number | undefined, ansi: boolean): string {
  const { history, screen } = terminalRows(s, pane);
  let rows: string[];
  if (source === "visible" || source === "detection") {
    rows = dropTrailingBlank(screen);
    if (lines !== undefined) rows = rows.slice(Math.max(0, rows.length - lines));
  } else {
    const all = [...history, ...screen];
    rows = dropTrailingBlank(all.slice(Math.max(0, all.length - Math.min(lines ?? 80, 1000))));
  }
  const text = rows.join("\n") + (rows.length && source !== "recent-unwrapped" ? "\n" : "");
  return ansi ? text : stripAnsi(text);
}

/** `${NAME}` in a program's rows is its environment's value, as the shell script the real herdr runs expands it. */
export function expandRows(rows: string[], env: Record<string, string> | undefined): string {
  return rows.map((r) => r.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, k: string) => env?.[k] ?? "")).join("\n");
}

function drawStep(after_ms: number, screen: ProgramScreen, env: Record<string, string> | undefined): ReactionStep {
  const step: ReactionStep = { after_ms, set_visible: expandRows(screen.rows, env), status: screen.status };
  if (screen.title !== undefined) step.title = screen.title;
  return step;
}

/** The program's first screen, drawn as it starts. */
export function startSteps(program: ProgramDef, env: Record<string, string> | undefined): ReactionStep[] {
  return [drawStep(0, program.start, env)];
}

/**
 * What the program does with a prompt: herdr types it, so each of its lines reaches the program as
 * one input line (a program without bracketed paste), and each line runs the first turn whose
 * prefix it starts with, one after another. `${INPUT}` in a turn's rows is that line.
 */
export function promptSteps(program: ProgramDef, text: string, env: Record<string, string> | undefined): ReactionStep[] {
  const steps: ReactionStep[] = [];
  let at = SUBMIT_DELAY_MS;
  for (const line of text.split("\n")) {
    const turn = program.turns.find((t) => line.startsWith(t.prefix));
    for (const { screen, hold_ms } of turn?.screens ?? []) {
      steps.push(drawStep(at, screen, { ...env, INPUT: line }));
      at += hold_ms ?? 0;
    }
  }
  return steps;
}

/** Whether `exe` is an executable on the PATH of `env` (the server's: a pane's shell looks there). */
export function onPath(exe: string, env: Record<string, string>): boolean {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, exe), constants.X_OK);
      return true;
    } catch {
      // Not in this directory.
    }
  }
  return false;
}

/** What a program in `pane` gets: the server's environment, the pane's `--env`, herdr's variables. */
export function paneEnv(s: FakeState, pane: PaneRec, socket: string): Record<string, string> | undefined {
  if (!s.server_env) return undefined;
  return {
    ...s.server_env,
    ...pane.env,
    HERDR_ENV: "1",
    HERDR_SOCKET_PATH: socket,
    HERDR_WORKSPACE_ID: pane.workspace_id,
    HERDR_TAB_ID: pane.tab_id,
    HERDR_PANE_ID: pane.pane_id,
  };
}
