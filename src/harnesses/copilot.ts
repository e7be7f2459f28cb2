/** GitHub Copilot CLI (HRN-02): soldier states from a `--plugin-dir` plugin; commander woken by an agentStop drain or typing. */
import { join } from "node:path";
import { UsageError } from "../errors";
import { readTextIfExists } from "../state/files";
import { type ReportState, reportCommand } from "./hook-shell";
import type { Harness } from "./types";
import { wakeFileCheck } from "./wake-check";
import { copilotUsage } from "./usage/copilot";

export const COPILOT = {
  bin: "copilot",
  pkg: "@github/copilot",
  version: /GitHub Copilot CLI (\d+\.\d+\.\d+)/,
  continueFlag: "--continue",
  efforts: ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const,
} as const;

/** HRD-04: `--allow-all` does not skip the folder-trust dialog (the env below does); the model list is the provider's. */
export function copilotSoldierArgs(model?: string, effort?: string): string[] {
  return ["--allow-all", ...(model ? ["--model", model] : []), ...(effort ? ["--reasoning-effort", effort] : [])];
}

/** Exactly "true" trusts the camp, vx's own worktree, for this run without recording it. */
export const COPILOT_SOLDIER_ENV = { COPILOT_ALLOW_ALL: "true" } as const;

/** Screen texts, 80 columns and wider. */
export const COPILOT_SCREEN = {
  ready: /· (\/ commands|@ files)\b/,
  busy: /\bWorking\b.*\besc\b/,
  /** Before input is accepted: text typed then is lost. */
  loading: /\bLoading: /,
  trust: { text: /Do you trust the files in this folder\?/, key: "Enter" },
  /** A declined dialog fires no hook: a soldier reported blocked stays so until its next prompt. */
  permission: /Do you want to (run this command|create|edit)\b/,
  /** No hook ends a failed turn: a soldier left working is settled from this text, or the transcript's `session.error`. */
  failed: /Failed to get response from the AI model/,
  cancelled: /Operation cancelled by user/,
  exitHint: /ctrl\+c again to exit/,
} as const;

/** Blocked from notification, not permissionRequest, which also fires for tools the rules approve. */
export function copilotHooksJson(vx: string): Record<string, unknown> {
  const hook = (state: ReportState, extra: Record<string, string> = {}) => [{ type: "command", bash: reportCommand(vx, state), timeoutSec: 10, ...extra }];
  return {
    version: 1,
    hooks: {
      userPromptSubmitted: [...hook("working")],
      notification: [...hook("blocked", { matcher: "permission_prompt" })],
      postToolUse: [...hook("working")],
      agentStop: [...hook("idle")],
    },
  };
}

/** A plugin under `hooksDir` for this run only: nothing in the camp or COPILOT_HOME. Its hooks run in its dir, so vx's path is absolute. */
export function copilotStateHooks(vx: string, hooksDir: string): { args: string[]; files: { path: string; content: string }[] } {
  const dir = join(hooksDir, "copilot-plugin");
  const manifest = { name: "vx-state", description: "vx soldier state reports", version: "1.0.0" };
  return {
    args: ["--plugin-dir", dir],
    files: [
      { path: join(dir, ".plugin", "plugin.json"), content: `${JSON.stringify(manifest, null, 2)}\n` },
      { path: join(dir, "hooks", "hooks.json"), content: `${JSON.stringify(copilotHooksJson(vx), null, 2)}\n` },
    ],
  };
}

/** The input box's text, "" when empty: CMDR-08 must not type into a person's draft. */
export function copilotUnsentText(screen: string): string {
  const lines = screen.split("\n").map((l) => l.trimEnd());
  const rules = lines.flatMap((l, i) => (/^─{20,}$/.test(l) ? [i] : []));
  if (rules.length < 2) return "";
  const [top, bottom] = rules.slice(-2) as [number, number];
  return lines
    .slice(top + 1, bottom)
    .join("\n")
    .replace(/^❯ ?/, "")
    .trim();
}

/** Copilot loads `.github/hooks/*.json` of a trusted project. */
export const COPILOT_WAKE_HOOK_PATH = ".github/hooks/vx.json";

// Finds vx as the other commanders' Stop hook does (the shell may not have read the profile). The drain's
// `{"decision":"block",...}` (AWT-02) makes agentStop submit the reason as the next prompt.
const DRAIN_COMMAND = `for v in "$(command -v vx 2>/dev/null)" "$HOME/.local/bin/vx" /opt/homebrew/bin/vx /usr/local/bin/vx /home/linuxbrew/.linuxbrew/bin/vx; do [ -f "$v" ] && [ -x "$v" ] && exec "$v" sentinel drain; done; echo "vx: not found, so the agentStop hook cannot wake the commander. Install vx or put its directory on PATH, then run: vx doctor" >&2; echo '{}'`;

export const COPILOT_WAKE_HOOK = `${JSON.stringify({ version: 1, hooks: { agentStop: [{ type: "command", bash: DRAIN_COMMAND, cwd: ".", timeoutSec: 30 }] } }, null, 2)}\n`;

/** AWT-01: Copilot runs the Claude Stop hook too and waits on every hook, so an await under it must exit at once. */
function runsHooksSynchronously(env: Record<string, string | undefined>, ownerCommand?: string): boolean {
  if (env.COPILOT_CLI !== "1" || ownerCommand === undefined) return false;
  const first = ownerCommand.trim().split(/\s+/)[0] ?? "";
  return first.slice(first.lastIndexOf("/") + 1) === COPILOT.bin;
}

export const copilot: Harness = {
  name: "copilot",
  label: "GitHub Copilot CLI",
  exe: COPILOT.bin,
  program: () => [COPILOT.bin],
  soldierArgs: copilotSoldierArgs,
  stateHooks({ vx, hooksDir }) {
    const { args, files } = copilotStateHooks(vx, hooksDir);
    return { args, env: { ...COPILOT_SOLDIER_ENV }, files };
  },
  ready: COPILOT_SCREEN.ready,
  unsent: undefined,
  soldierEnv: COPILOT_SOLDIER_ENV,
  // A wrong effort would end the soldier in its pane; models are the provider's.
  checkModelEffort(_model, effort) {
    if (effort !== undefined && !(COPILOT.efforts as readonly string[]).includes(effort)) {
      throw new UsageError(`unknown effort "${effort}" for harness copilot (expected one of ${COPILOT.efforts.join(", ")})`, "dispatch");
    }
  },
  launchRefusal: () => undefined,
  // It picks the camp's own session, even when another camp's is newer.
  continueArgs: async () => [COPILOT.continueFlag],
  usage: copilotUsage,
  commander: {
    // A wake pending at a turn's end goes by the agentStop hook first.
    wake: { kind: "idle-prompt" },
    installed: (top) => readTextIfExists(join(top, COPILOT_WAKE_HOOK_PATH)) !== undefined,
    plan(p) {
      p.wakeFile(COPILOT_WAKE_HOOK_PATH, COPILOT_WAKE_HOOK, "the Copilot commander's agentStop wake hook");
    },
    fileChecks: (top) => [wakeFileCheck(top, "Copilot wake hook", COPILOT_WAKE_HOOK_PATH, COPILOT_WAKE_HOOK)],
    liveChecks: async () => [],
    nonInteractive: runsHooksSynchronously,
    rearmsByTurn: () => false,
    tmuxCommander: {
      marker: "COPILOT_CLI",
      pidVar: "COPILOT_LOADER_PID",
      program: /^copilot$/,
      busy: COPILOT_SCREEN.busy,
      mark: "❯",
      emptyInput: /^$/,
    },
  },
};
