/**
 * Codex: as a soldier (its lifecycle hooks given with -c) and as a commander, woken through
 * `codex queue` (CMDR-09).
 */
import { codexSandboxCheck } from "./codex-sandbox";
import { errorMessage } from "../errors";
import { EXEC_NOT_FOUND, EXEC_TIMED_OUT, type ExecResult } from "../exec";
import { CODEX_SANDBOX_WHY, codexSandboxAdvice } from "../sandbox";
import { terminalText } from "../terminal-text";
import { type ReportState, reportCommand, tomlString } from "./hook-shell";
import type { Harness } from "./types";

/**
 * `codex queue --thread <id> --message <text>` queues a message that the running Codex TUI of that
 * thread runs after its current turn. The thread is the one the commander itself ran vx from
 * (`CODEX_THREAD_ID` in the environment Codex gives the commands it runs), recorded in
 * commanders.json: the pane's own session, never "the newest".
 */
export function codexQueueArgv(thread: string, text: string): string[] {
  return ["codex", "queue", "--thread", thread, "--message", terminalText(text)];
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** One line saying why `codex queue` failed, for the sentinel log. */
function codexFailure(res: ExecResult): string {
  if (res.code === EXEC_NOT_FOUND) return "codex not found in PATH";
  if (res.code === EXEC_TIMED_OUT) return "codex queue did not finish in time";
  const detail = firstLine(res.stderr) || firstLine(res.stdout);
  return `codex queue failed (exit ${res.code})${detail ? `: ${detail}` : ""}`;
}

// Codex's lifecycle hooks, Claude-style, given with -c (its notify is not used: it also fires for
// Codex's own title-generation turn, which runs beside the soldier's first turn under another
// thread, and was seen firing while the soldier sat at a permission dialog, so it would report
// idle over blocked or working; the Stop hook fires for the soldier's own turns only). Hooks
// given with -c are skipped silently unless trusted, and trust given with -c is ignored, so the
// trust check is bypassed for this invocation (recording trust would mean editing the user's
// CODEX_HOME). They add to the user's own hooks, and run through a shell like Claude Code's.
function hookArgs(vx: string): string[] {
  const hook = (event: string, state: ReportState) => ["-c", `hooks.${event}=[{hooks=[{type="command",command=${tomlString(reportCommand(vx, state))}}]}]`];
  return ["--dangerously-bypass-hook-trust", ...hook("UserPromptSubmit", "working"), ...hook("PermissionRequest", "blocked"), ...hook("PostToolUse", "working"), ...hook("Stop", "idle")];
}

export const codex: Harness = {
  name: "codex",
  label: "Codex",
  exe: "codex",
  program: () => ["codex"],
  soldierArgs: (model, effort) => ["--dangerously-bypass-approvals-and-sandbox", ...(model ? ["--model", model] : []), ...(effort ? ["-c", `model_reasoning_effort=${effort}`] : [])],
  stateHooks: ({ vx }) => ({ args: hookArgs(vx), env: {}, files: [] }),
  // Codex draws its composer ("Ask Codex to do anything") while still loading, seconds before its
  // folder-trust dialog; the session's "permissions:" header line and the footer's "← for agents"
  // come only once it takes input (the footer stays on screen when a resumed history scrolls the
  // header away).
  ready: /^\s*permissions: |context left|← for agents/m,
  unsent: undefined,
  checkModelEffort: () => undefined,
  launchRefusal: () => undefined,
  // A subcommand, so first. `codex resume --last` picks the newest session recorded for this
  // working directory, the camp (`--all` would widen it).
  continueArgs: async () => ["resume", "--last"],
  commander: {
    wake: {
      kind: "queue",
      async send(run, entry, text) {
        const thread = entry.codex_thread_id;
        if (!thread) {
          return { ok: false, error: "no Codex thread recorded for this commander yet (vx records it when the commander runs vx dispatch, prompt or decide)" };
        }
        const env = entry.codex_home ? { ...run.env, CODEX_HOME: entry.codex_home } : run.env;
        try {
          const res = await run.exec.run(codexQueueArgv(thread, text), { env, cwd: run.cwd, timeoutMs: run.timeoutMs });
          return res.code === 0 ? { ok: true } : { ok: false, error: codexFailure(res) };
        } catch (err) {
          return { ok: false, error: errorMessage(err) };
        }
      },
    },
    installed: () => false,
    plan(p) {
      if (!p.refresh) p.note(`Codex commander: ${CODEX_SANDBOX_WHY} - ${codexSandboxAdvice({})}; 'vx doctor' names the writable_roots that keep the sandbox instead`);
    },
    fileChecks: () => [
      {
        status: "ok",
        name: "Codex commander",
        detail: "woken by the sentinel with 'codex queue' into the Codex session that last ran vx dispatch, prompt or decide in a herdr pane",
      },
    ],
    liveChecks: async ({ env, root, gitDir }) => [codexSandboxCheck(env, await gitDir(), root)],
    nonInteractive: () => false,
    // No await: woken by `codex queue` or typing.
    rearmsByTurn: () => false,
    // Codex 0.171: `• Working (3s • esc to interrupt)` while busy; an empty composer shows `› ` and a
    // grey placeholder sentence, or nothing.
    tmuxCommander: {
      marker: "CODEX_THREAD_ID",
      program: /^codex$/,
      busy: /esc to interrupt/i,
      mark: "›",
      emptyInput:
        /^(?:Ask Codex to do anything|Find and fix a bug in @filename|Improve documentation in @filename|Summarize recent commits|Implement \{feature\}|Explain this codebase|Write tests for @filename|Use \/skills to list available skills|Run \/review on my current changes)?$/,
    },
  },
};
