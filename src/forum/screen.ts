/**
 * A running soldier's screen on its card (FOR-15): read through its backend's terminal exactly as the sentinel's pass
 * reads a pane (the soldier found by the backend's survey and verified as the task's, then its sighting's `read`),
 * redacted (RED-*) before it leaves the server, and bounded. Reads only: nothing is written to state.
 */
import type { Deps } from "../deps";
import { errorMessage } from "../errors";
import type { Exec } from "../exec";
import { redact } from "../redact";
import type { Env } from "../state/paths";
import { loadTask } from "../state/tasks";
import { soldierTerminal } from "../soldiers/terminal";
import { COUNTS, realClock, scaled } from "../time";
import { type ActionReply, taskOfRequest } from "./actions";

/** The lines of the screen's bottom the card shows. */
export const SCREEN_LINES = 40;
/** At most this many characters of the shown lines (a line of a wide pane is cut, so a look stays small). */
const SCREEN_CHARS = 16 * 1024;

export type ScreenCtx = { root: string; exec: Exec; env: Env; self: string[] };

/** `live`: `text` is the screen's bottom; otherwise `text` says why there is none. `poll_ms`: when the page asks again. */
export type Screen = { state: "live" | "gone" | "remote" | "unreadable"; text: string; poll_ms: number };

/** A command's seam for the backend's terminal: its output streams go nowhere (a read prints nothing). */
function readDeps(ctx: ScreenCtx, cwd: string): Deps {
  const quiet = { write: () => true };
  return {
    env: ctx.env,
    cwd,
    exec: ctx.exec,
    clock: realClock,
    stdout: quiet,
    stderr: quiet,
    stdinIsTTY: false,
    readLine: async () => undefined,
    self: ctx.self,
    pid: process.pid,
    ppid: () => process.ppid,
  };
}

/** The bottom of a capture: redacted whole first (a secret's context may lie above the shown lines), blank rows below dropped. */
export function screenTail(capture: string): string {
  const lines = redact(capture).replace(/\s+$/, "").split("\n").slice(-SCREEN_LINES);
  const text = lines.map((l) => (l.length > COUNTS.outputLineChars ? `${l.slice(0, COUNTS.outputLineChars)}…` : l)).join("\n");
  return text.length > SCREEN_CHARS ? text.slice(-SCREEN_CHARS) : text;
}

export async function paneScreen(ctx: ScreenCtx, query: Record<string, unknown>): Promise<ActionReply | { status: 200; body: Screen }> {
  const found = taskOfRequest(ctx.root, query);
  if ("status" in found) return found;
  const poll_ms = scaled("boardScreenPoll", ctx.env);
  const reply = (state: Screen["state"], text: string) => ({ status: 200 as const, body: { state, text, poll_ms } });
  let task: ReturnType<typeof loadTask>;
  try {
    task = loadTask(found.paths, found.id);
  } catch (err) {
    return reply("unreadable", `the task file cannot be read: ${errorMessage(err)}`);
  }
  if (!task) return reply("gone", "the task is not there any more");
  const t = task.value;
  // MCH-10 runs commands there, but no command there shows a screen: said, not guessed.
  if (t.machine) return reply("remote", `on ${t.machine}: screen not available from the board`);
  try {
    const soldier = await soldierTerminal(readDeps(ctx, found.paths.project), found.paths, t).live(t);
    if (!soldier) return reply("gone", "its pane is gone: no soldier's screen to show");
    const capture = await soldier.read();
    if (capture === undefined) return reply("unreadable", "its pane could not be read just now");
    return reply("live", screenTail(capture));
  } catch (err) {
    return reply("unreadable", `its pane could not be read: ${redact(errorMessage(err))}`);
  }
}
