/** Codex: soldier hooks given with -c; commander woken through `codex queue` (CMDR-09). */
import { codexSandboxCheck } from "./codex-sandbox";
import { errorMessage } from "../errors";
import { EXEC_NOT_FOUND, EXEC_TIMED_OUT, type ExecResult } from "../exec";
import { CODEX_SANDBOX_WHY, codexSandboxAdvice } from "../sandbox";
import { terminalText } from "../terminal-text";
import { type ReportState, reportCommand, tomlString } from "./hook-shell";
import type { Harness } from "./types";
import { codexUsage } from "./usage/codex";

/** The thread is the commander's own (`CODEX_THREAD_ID` recorded from its commands), never "the newest". */
export function codexQueueArgv(thread: string, text: string): string[] {
  return ["codex", "queue", "--thread", thread, "--message", terminalText(text)];
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function codexFailure(res: ExecResult): string {
  if (res.code === EXEC_NOT_FOUND) return "codex not found in PATH";
  if (res.code === EXEC_TIMED_OUT) return "codex queue did not finish in time";
  const detail = firstLine(res.stderr) || firstLine(res.stdout);
  return `codex queue failed (exit ${res.code})${detail ? `: ${detail}` : ""}`;
}

// Lifecycle hooks, not `notify`, which also fires for Codex's own side turns and would report idle over blocked.
// Hooks given with -c run only if trusted and -c cannot trust them: bypassed, so the user's CODEX_HOME is not edited.
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
  // Not the composer: it shows while Codex still loads, before its trust dialog.
  ready: /^\s*permissions: |context left|← for agents/m,
  unsent: undefined,
  checkModelEffort: () => undefined,
  launchRefusal: () => undefined,
  // A subcommand, so first; `--last` is the newest session of this directory, the camp.
  continueArgs: async () => ["resume", "--last"],
  usage: codexUsage,
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
    rearmsByTurn: () => false,
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
