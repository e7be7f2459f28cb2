/** Claude Code: soldier (HRD-04, TMX-05) and commander (its Stop hook runs the await). */
import { join } from "node:path";
import { UsageError } from "../errors";
import { type ReportState, reportCommand } from "./hook-shell";
import type { Harness, HookedLaunch } from "./types";
import { claudeUsage } from "./usage/claude";

const MODELS = ["haiku", "sonnet", "opus", "fable"];
const EFFORTS = ["low", "medium", "high", "xhigh", "max"];

// PermissionRequest is a decision hook: vx report exits 0, leaving the decision to the dialog (2 would block).
// TMX-05's Notification comes later. PostToolUse sets working again after a dialog, as SEN-20 needs.
function stateHooks(vx: string, hooksDir: string): HookedLaunch {
  const hooks = (state: ReportState) => [{ type: "command", command: reportCommand(vx, state), timeout: 10 }];
  const settings = {
    hooks: {
      UserPromptSubmit: [{ hooks: hooks("working") }],
      PermissionRequest: [{ hooks: hooks("blocked") }],
      Notification: [{ matcher: "permission_prompt", hooks: hooks("blocked") }],
      PostToolUse: [{ hooks: hooks("working") }],
      Stop: [{ hooks: hooks("idle") }],
      StopFailure: [{ hooks: hooks("idle") }],
    },
  };
  const path = join(hooksDir, "claude-settings.json");
  return { args: ["--settings", path], env: {}, files: [{ path, content: `${JSON.stringify(settings, null, 2)}\n` }] };
}

/** AWT-01: print mode and the SDK run async hooks synchronously (an await would hang) and have no idle session to wake. */
function nonInteractive(env: Record<string, string | undefined>, ownerCommand?: string): boolean {
  const entry = env.CLAUDE_CODE_ENTRYPOINT;
  if (entry && entry !== "cli") return true;
  if (ownerCommand === undefined) return false;
  const words = ownerCommand.trim().split(/\s+/);
  const first = words[0] ?? "";
  const claude = env.CLAUDECODE === "1" || first.slice(first.lastIndexOf("/") + 1) === "claude";
  return claude && words.slice(1).some((w) => w === "-p" || w === "--print" || w.startsWith("--print="));
}

/** AWT-12: a Stop hook runs only after a model turn and dies at its `timeout`, so the await ends its day with a re-arm wake. */
function rearmsByTurn(ownerCommand: string, env: Record<string, string | undefined>): boolean {
  const first = ownerCommand.trim().split(/\s+/, 1)[0] ?? "";
  const base = first.slice(first.lastIndexOf("/") + 1);
  if (base === "claude" || base === "claude.exe") return true;
  return env.CLAUDECODE === "1" && /\/claude(?:-code)?\//.test(ownerCommand);
}

export const claude: Harness = {
  name: "claude",
  label: "Claude Code",
  exe: "claude",
  program: () => ["claude"],
  soldierArgs(model, effort) {
    const m = model ? ["--model", model] : [];
    // A suggested completion in the input box would read as soldier output.
    return ["--dangerously-skip-permissions", "--prompt-suggestions", "false", ...m, ...(effort ? ["--effort", effort] : [])];
  },
  stateHooks: ({ vx, hooksDir }) => stateHooks(vx, hooksDir),
  ready: /^\s*❯\s*$|\? for shortcuts/m,
  unsent: undefined,
  checkModelEffort(model, effort) {
    if (model !== undefined && !MODELS.includes(model)) {
      throw new UsageError(`unknown model "${model}" (expected one of ${MODELS.join(", ")})`, "dispatch");
    }
    if (effort !== undefined && !EFFORTS.includes(effort)) {
      throw new UsageError(`unknown effort "${effort}" (expected one of ${EFFORTS.join(", ")})`, "dispatch");
    }
  },
  // Said before a camp is leased, not as a dead pane later.
  launchRefusal(env) {
    if (process.getuid?.() !== 0 || env.IS_SANDBOX === "1") return undefined;
    return "Claude Code refuses --dangerously-skip-permissions when run as root unless IS_SANDBOX=1 is set - set IS_SANDBOX=1 if this machine is a sandbox, or run vx as another user";
  },
  // A camp is its own worktree, so "the last conversation in this directory" is the soldier's own.
  continueArgs: async () => ["--continue"],
  usage: claudeUsage,
  commander: {
    wake: { kind: "hook" },
    installed: () => false,
    plan: () => undefined,
    fileChecks: () => [],
    liveChecks: async () => [],
    nonInteractive,
    rearmsByTurn,
    tmuxCommander: undefined,
  },
};
