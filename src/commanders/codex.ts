/**
 * The Codex commander's wake path (CMDR-09): `codex queue --thread <id> --message <text>` queues a
 * message that the running Codex TUI of that thread runs after its current turn. The thread is the
 * one the commander itself ran vx from (`CODEX_THREAD_ID` in the environment Codex gives the
 * commands it runs), recorded in commanders.json: the pane's own session, never "the newest".
 */
import type { ExecResult } from "../exec";
import { EXEC_NOT_FOUND, EXEC_TIMED_OUT } from "../exec";
import { terminalText } from "../terminal-text";

export function codexQueueArgv(thread: string, text: string): string[] {
  return ["codex", "queue", "--thread", thread, "--message", terminalText(text)];
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** One line saying why `codex queue` failed, for the sentinel log. */
export function codexFailure(res: ExecResult): string {
  if (res.code === EXEC_NOT_FOUND) return "codex not found in PATH";
  if (res.code === EXEC_TIMED_OUT) return "codex queue did not finish in time";
  const detail = firstLine(res.stderr) || firstLine(res.stdout);
  return `codex queue failed (exit ${res.code})${detail ? `: ${detail}` : ""}`;
}
