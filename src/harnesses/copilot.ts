/**
 * GitHub Copilot CLI (`@github/copilot`, binary `copilot`), vx's harness since HRN-02: as a soldier
 * (a `--plugin-dir` plugin's hooks report states) and as a commander (an agentStop hook drains
 * wakes pending at a turn's end; the sentinel types the others into its idle pane). What the real
 * CLI 1.0.102 was seen to do is in docs/real-clients.md, "GitHub Copilot CLI 1.0.102".
 */
import { join } from "node:path";
import { UsageError } from "../errors";
import { readTextIfExists } from "../state/files";
import { type ReportState, reportCommand } from "./hook-shell";
import type { Harness } from "./types";
import { wakeFileCheck } from "./wake-check";

export const COPILOT = {
  bin: "copilot",
  pkg: "@github/copilot",
  /** `copilot --version` prints `GitHub Copilot CLI 1.0.102.` (then an update hint). */
  version: /GitHub Copilot CLI (\d+\.\d+\.\d+)/,
  /** Resumes the most recent session in the directory (its sessionStart hook says `source: "resume"`). */
  continueFlag: "--continue",
  /** `--reasoning-effort`'s accepted values, from `copilot --help`. */
  efforts: ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const,
} as const;

/**
 * A soldier's own arguments (HRD-04's bypass): `--allow-all` approves tools, paths and URLs; it
 * does NOT skip the folder-trust dialog (the environment below does). Any model name is passed
 * through: the model list is the provider's (GitHub's catalog, or the user's own provider).
 */
export function copilotSoldierArgs(model?: string, effort?: string): string[] {
  return ["--allow-all", ...(model ? ["--model", model] : []), ...(effort ? ["--reasoning-effort", effort] : [])];
}

/**
 * `COPILOT_ALLOW_ALL=true` (exactly "true") also trusts the working directory for this run without
 * the dialog and without recording it in the user's config.json; other true-ish values only allow
 * tools. A soldier's camp is vx's own worktree, so trusting it is what the user asked for.
 */
export const COPILOT_SOLDIER_ENV = { COPILOT_ALLOW_ALL: "true" } as const;

/** Screen texts (80 columns and wider), from a real pane. */
export const COPILOT_SCREEN = {
  /**
   * The idle footer under the input box: `… · Interactive · Manual Approval · / commands · ? help …`
   * when the box is empty, `Interactive · Manual Approval · @ files · # issues` when it holds text.
   */
  ready: /· (\/ commands|@ files)\b/,
  /** The footer while a turn runs: `◉ Working · 57 B esc esc interrupt`. */
  busy: /\bWorking\b.*\besc\b/,
  /** Startup, before input is accepted (text typed then is lost): `◉ Loading: 1 plugin, 10 hooks, 2 skills`. */
  loading: /\bLoading: /,
  /** The folder-trust dialog (`Confirm folder trust`); Enter picks the highlighted `1. Yes` (this session only). */
  trust: { text: /Do you trust the files in this folder\?/, key: "Enter" },
  /**
   * A tool permission dialog; Enter picks `1. Yes`. Escape declines (a first Escape sent by tmux was
   * once not acted on, a second was); a declined dialog ends the turn with `Operation cancelled by
   * user` and fires no hook, so a soldier reported blocked stays blocked until its next prompt.
   */
  permission: /Do you want to (run this command|create|edit)\b/,
  /**
   * A turn that failed after its retries; no hook fires at its end (errorOccurred fires once per
   * attempt, every one `recoverable: true`, and agentStop not at all), so a soldier left `working`
   * must be settled from this text with the idle footer, or from the transcript's `session.error`.
   */
  failed: /Failed to get response from the AI model/,
  /** Ctrl-C during a turn cancels it (no agentStop); the footer shows `● Cancelling`, then idle. */
  cancelled: /Operation cancelled by user/,
  /** Ctrl-C at an idle prompt shows this; a second one exits and prints `Resume copilot --resume=<id>`. */
  exitHint: /ctrl\+c again to exit/,
} as const;

/**
 * The hook events that carry a soldier's state. notification is asynchronous (fire and forget) and
 * filtered by `matcher` on its notification_type; it fires for a permission dialog about 0.2 s
 * after permissionRequest, which runs before the permission rules and so also fires for tools that
 * are then approved automatically (not a sign of blocked). postToolUse is the first event after an
 * answered dialog. agentStop fires once per finished main-agent turn (not for subagents).
 */
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

// Plugin hooks run with the plugin directory as their cwd: the command names vx by absolute path.
/**
 * State hooks configured from outside the camp: a plugin directory under `hooksDir`, loaded with
 * `--plugin-dir` for this run only (nothing installed, nothing written into the camp or into the
 * user's COPILOT_HOME). The identity goes in the environment as for the other harnesses.
 */
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

/**
 * The text in the input box, "" when it is empty: the lines between the last two full-width rules
 * above the footer, the first one after the `❯ ` prompt mark. CMDR-08's typed delivery must not
 * type into a person's unsent text.
 */
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

/** The commander's repository hook file (Copilot loads `.github/hooks/*.json` of the trusted project). */
export const COPILOT_WAKE_HOOK_PATH = ".github/hooks/vx.json";

// Finds vx as the Stop hook of the other commanders does (the hook's shell may never have read the
// user's profile); `vx sentinel drain` prints `{"decision":"block","reason":...}` (AWT-02), the very
// answer that makes agentStop submit the reason as the next prompt, or `{}` to let the turn end.
const DRAIN_COMMAND = `for v in "$(command -v vx 2>/dev/null)" "$HOME/.local/bin/vx" /opt/homebrew/bin/vx /usr/local/bin/vx /home/linuxbrew/.linuxbrew/bin/vx; do [ -f "$v" ] && [ -x "$v" ] && exec "$v" sentinel drain; done; echo "vx: not found, so the agentStop hook cannot wake the commander. Install vx or put its directory on PATH, then run: vx doctor" >&2; echo '{}'`;

/** The wake hook file: agentStop drains the project's wakes at every turn's end, from the project root. */
export const COPILOT_WAKE_HOOK = `${JSON.stringify({ version: 1, hooks: { agentStop: [{ type: "command", bash: DRAIN_COMMAND, cwd: ".", timeoutSec: 30 }] } }, null, 2)}\n`;

/**
 * AWT-01: Copilot also runs the project's `.claude/settings.json` hooks, so the Claude Code Stop hook
 * vx init writes for every commander runs `vx sentinel await` as Copilot's agentStop, and Copilot
 * waits for every hook: the turn would hang until a wake. The await sees Copilot (`COPILOT_CLI=1`
 * in its hooks' environment, the owner's executable named `copilot`) and exits at once; the agentStop
 * drain above is Copilot's wake instead.
 */
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
  // Its Enter after a paste was seen to submit every time (docs/real-clients.md).
  unsent: undefined,
  soldierEnv: COPILOT_SOLDIER_ENV,
  // Any model goes through (the provider's list, GitHub's or the user's own); the effort list is
  // the CLI's own, and a wrong one would end the soldier in its pane.
  checkModelEffort(_model, effort) {
    if (effort !== undefined && !(COPILOT.efforts as readonly string[]).includes(effort)) {
      throw new UsageError(`unknown effort "${effort}" for harness copilot (expected one of ${COPILOT.efforts.join(", ")})`, "dispatch");
    }
  },
  launchRefusal: () => undefined,
  // It picks the session whose working directory is the camp's, even when another camp of the
  // same repository has a newer (ended) session in the same COPILOT_HOME (compat resume.test.ts).
  continueArgs: async () => [COPILOT.continueFlag],
  commander: {
    // No asynchronous hook: a wake that arrives while Copilot sits idle is typed into its pane
    // (only while idle, so never into a person's draft); one pending at a turn's end is taken by
    // the agentStop hook first.
    wake: { kind: "idle-prompt" },
    installed: (top) => readTextIfExists(join(top, COPILOT_WAKE_HOOK_PATH)) !== undefined,
    plan(p) {
      p.wakeFile(COPILOT_WAKE_HOOK_PATH, COPILOT_WAKE_HOOK, "the Copilot commander's agentStop wake hook");
    },
    fileChecks: (top) => [wakeFileCheck(top, "Copilot wake hook", COPILOT_WAKE_HOOK_PATH, COPILOT_WAKE_HOOK)],
    liveChecks: async () => [],
    nonInteractive: runsHooksSynchronously,
    // Its agentStop hook drains at every turn's end, so no await re-arms by a turn.
    rearmsByTurn: () => false,
    // Copilot CLI 1.0.102 in a plain tmux pane (CMDR-10), seen: its bash tool's commands get
    // COPILOT_CLI=1 and COPILOT_LOADER_PID, the pid of its native `copilot` binary (under the npm
    // package's node wrapper). Busy: the footer's `● Working esc esc edit prompt`. The input line
    // is `❯ ` between two rules, blank when empty (no placeholder); past prompts show ` ❯ text`
    // above it, so the input line is the last one.
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
