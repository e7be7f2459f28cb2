/**
 * Gemini CLI (`@google/gemini-cli`), as observed on 0.61.0 (HRN-02): as a soldier (its private
 * GEMINI_CLI_HOME's hooks report states) and as a commander (no async hook, so the sentinel types
 * wakes into its idle pane, CMDR-08). docs/real-clients.md ("Gemini CLI 0.61.0") says which of it
 * was seen and which only read.
 *
 * State hooks: Gemini CLI reads hooks from settings files only (no flag names one). The system
 * settings files (GEMINI_CLI_SYSTEM_SETTINGS_PATH, GEMINI_CLI_SYSTEM_DEFAULTS_PATH) are skipped
 * unless the file and every parent directory are owned by root and not group- or world-writable,
 * and the workspace's `.gemini/settings.json` is inside the camp. What remains is the user
 * settings file under GEMINI_CLI_HOME (Gemini CLI's own stand-in for the home directory): a
 * soldier gets a private one under its hooks dir holding the user's settings plus vx's hooks,
 * and links to everything else in the user's `~/.gemini` (credentials, sessions, trust).
 */
import { lstatSync, readFileSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Check } from "../check";
import { UsageError } from "../errors";
import { SettingsShapeError } from "../errors";
import { readTextIfExists } from "../state/files";
import { shellQuote } from "./hook-shell";
import type { Harness, HookedLaunch } from "./types";

export const GEMINI = {
  name: "gemini",
  binary: "gemini",
  pkg: "@google/gemini-cli",
  testedVersion: "0.61.0",
  /** Prints the bare version, e.g. `0.61.0`, on stdout. */
  versionArgs: ["--version"],
  /** `--resume latest` reopens the newest session of the current directory (sessions are per project). */
  continueArgs: ["--resume", "latest"],
  /** No effort flag: thinking depends on the model's settings (`modelConfigs`), so vx refuses `--effort`. */
  effort: undefined,
} as const;

/**
 * HRD-04 for Gemini CLI: `--skip-trust` trusts the camp for this session only (no folder-trust
 * dialog, nothing recorded), `--approval-mode yolo` runs every tool without asking, as the other
 * harnesses' bypass flags do. `-m` names the model; without it the CLI's "Auto" router picks one.
 */
export function soldierArgs(model?: string): string[] {
  return ["--skip-trust", "--approval-mode", "yolo", ...(model ? ["--model", model] : [])];
}

/**
 * The input box. It stays on screen during a turn (prompts typed then are queued), so idle is
 * READY_RE without BUSY_RE. The box shows before the session has initialised; a prompt submitted
 * as initialisation ended (the SessionStart hook fires then) was seen left in the box: wait for
 * SessionStart, and check that the turn started.
 */
export const READY_RE = /Type your message or @path\/to\/file/;
/**
 * The input box holding text (`[Pasted Text: 9 lines]` or the text itself) rather than its
 * placeholder: a pasted prompt whose Enter was dropped (an Enter within 40 ms of a paste is a
 * newline, and one pressed as the session finishes initialising was seen lost). `*` in YOLO mode.
 */
const UNSENT_RE = /^ [>*] +(?!Type your message or @path\/to\/file)\S/m;
/** A turn running: `⠧ Thinking... (esc to cancel, 6s)` or `Executing Hook: <name> (esc to cancel, 4s)`. */
const BUSY_RE = /\(esc to cancel, \d+s\)/;
/** The folder-trust dialog of a new folder (never shown with `--skip-trust`). */
export const TRUST_RE = /Do you trust the files in this folder\?/;
/** A tool waiting for a decision: `Apply this change?` for edits, `Allow execution of` for shell commands. */
export const DECISION_RE = /Apply this change\?|Allow execution of|● 1\. Allow once/;

/**
 * As a commander: no async hook can wake an idle session (a waiting hook holds the CLI), so the
 * wake is the sentinel's typed delivery (CMDR-08); BeforeAgent/AfterAgent hooks tell busy from
 * idle; text submitted during a turn is queued by the CLI (`Queued (press ↑ to edit):`) and runs
 * as the next turn. `vx init --commander gemini` would write the guidance to GEMINI.md (the default context
 * file) and, if hooks are wanted, `.gemini/settings.json`, whose hooks run only in a trusted
 * folder, after a non-blocking "project-level hooks have been detected" warning. Skills are
 * read from `.gemini/skills/` or `.agents/skills/`.
 */
const COMMANDER = { wake: "typed", contextFile: "GEMINI.md", settingsFile: ".gemini/settings.json", skillsDirs: [".gemini/skills", ".agents/skills"] } as const;

type State = "working" | "idle" | "blocked";

/**
 * The hook events vx needs: SessionStart once the session finished initialising (idle: ready for
 * a prompt; an Enter pressed as initialisation ends was seen dropped), BeforeAgent after a prompt is submitted (working), Notification with
 * `notification_type: "ToolPermission"` as a tool's confirmation opens (blocked), AfterTool once a
 * tool ran (working again), AfterAgent when the turn's last answer is in (idle). Hooks run
 * synchronously through `sh -c` with the hook's `env` added; `timeout` is in milliseconds.
 */
const STATE_EVENTS: readonly [event: string, state: State][] = [
  ["SessionStart", "idle"],
  ["BeforeAgent", "working"],
  ["Notification", "blocked"],
  ["AfterTool", "working"],
  ["AfterAgent", "idle"],
];

/** The `hooks` block of a settings file that makes Gemini CLI run `vx report <state>`. */
function stateHooksSettings(vx: string): Record<string, unknown[]> {
  const hooks: Record<string, unknown[]> = {};
  for (const [event, state] of STATE_EVENTS) {
    // Notification fires for other things too; only a tool's confirmation is a decision.
    const matcher = event === "Notification" ? { matcher: "ToolPermission" } : {};
    hooks[event] = [{ ...matcher, hooks: [{ name: `vx-report-${state}`, type: "command", command: `${shellQuote(vx)} report ${state}`, timeout: 10_000 }] }];
  }
  return hooks;
}

/**
 * A soldier's private Gemini CLI home under `hooksDir` (GEMINI_CLI_HOME): `.gemini/settings.json`
 * is the user's settings with vx's hooks appended per event, and every other entry of the user's
 * `.gemini` is linked (its credentials, sessions and trust stay the user's). The caller reads the
 * user's settings and directory listing and writes the files and links. VX_TASK_ID comes from the
 * pane's environment, which hooks inherit.
 */
export function soldierHome(opts: { vx: string; hooksDir: string; userGeminiDir: string; userSettings?: Record<string, unknown>; userEntries?: string[] }): Required<HookedLaunch> {
  const home = join(opts.hooksDir, "gemini-home");
  const dir = join(home, ".gemini");
  const settings = { ...(opts.userSettings ?? {}) };
  const mine = stateHooksSettings(opts.vx);
  const theirs = (settings.hooks ?? {}) as Record<string, unknown[]>;
  settings.hooks = Object.fromEntries([...new Set([...Object.keys(theirs), ...Object.keys(mine)])].map((e) => [e, [...(theirs[e] ?? []), ...(mine[e] ?? [])]]));
  const links = (opts.userEntries ?? []).filter((n) => n !== "settings.json").map((n) => ({ path: join(dir, n), target: join(opts.userGeminiDir, n) }));
  return {
    args: [],
    env: { GEMINI_CLI_HOME: home },
    files: [{ path: join(dir, "settings.json"), content: `${JSON.stringify(settings, null, 2)}\n` }],
    links,
  };
}

/** The user's `.gemini` (under their GEMINI_CLI_HOME when set, as the CLI reads it). */
function userGeminiDir(): string {
  return join(process.env.GEMINI_CLI_HOME || process.env.HOME || homedir(), ".gemini");
}

/** The user's settings (an unreadable or invalid file is left out: the soldier then has vx's hooks only) and entries. */
function readUser(dir: string): { userSettings?: Record<string, unknown>; userEntries: string[] } {
  let userEntries: string[] = [];
  try {
    if (lstatSync(dir).isDirectory()) userEntries = readdirSync(dir);
  } catch {
    return { userEntries };
  }
  try {
    const parsed = JSON.parse(readFileSync(join(dir, "settings.json"), "utf8")) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return { userSettings: parsed as Record<string, unknown>, userEntries };
  } catch {}
  return { userEntries };
}

/** AWT-01: `-p`/`--prompt` is headless, with no session to wake. */
function nonInteractive(_env: Record<string, string | undefined>, ownerCommand?: string): boolean {
  if (ownerCommand === undefined) return false;
  const words = ownerCommand.trim().split(/\s+/);
  const first = words[0] ?? "";
  if (!/(^|\/)gemini$/.test(first) && !words.some((w) => /(^|\/)gemini$/.test(w))) return false;
  return words.some((w) => w === "-p" || w === "--prompt" || w.startsWith("--prompt="));
}

// The commander block lives in AGENTS.md or CLAUDE.md (SCF-03); Gemini CLI reads GEMINI.md unless
// `context.fileName` in its settings names others, so init names them there (a file that does not
// exist is skipped by the CLI).
const CONTEXT_FILES = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"];
const SETTINGS_PATH = COMMANDER.settingsFile;

/** `.gemini/settings.json` with the commander block's files in `context.fileName`. */
export function mergeGeminiSettings(x: unknown): { next: Record<string, unknown>; changed: boolean } {
  if (typeof x !== "object" || x === null || Array.isArray(x)) throw new SettingsShapeError(`${SETTINGS_PATH} must hold a JSON object at the top level`, "");
  const next = JSON.parse(JSON.stringify(x)) as Record<string, unknown>;
  const context = next.context ?? {};
  if (typeof context !== "object" || context === null || Array.isArray(context)) throw new SettingsShapeError('"context" must be an object', "context");
  const ctx = context as Record<string, unknown>;
  const names = ctx.fileName === undefined ? [] : typeof ctx.fileName === "string" ? [ctx.fileName] : ctx.fileName;
  if (!Array.isArray(names)) throw new SettingsShapeError('"context.fileName" must be a string or a list of names', "context.fileName");
  const missing = CONTEXT_FILES.filter((n) => !names.includes(n));
  if (missing.length === 0) return { next, changed: false };
  next.context = { ...ctx, fileName: [...names, ...missing] };
  return { next, changed: true };
}

function contextCheck(top: string): Check {
  const name = "Gemini CLI reads the commander block";
  const fix = `add ${CONTEXT_FILES.map((n) => `"${n}"`).join(", ")} to "context.fileName" in ${SETTINGS_PATH} (vx init does it), or Gemini CLI reads only GEMINI.md`;
  const text = readTextIfExists(join(top, SETTINGS_PATH));
  if (text === undefined) return { status: "warn", name, detail: fix };
  try {
    if (!mergeGeminiSettings(JSON.parse(text)).changed) return { status: "ok", name, detail: `listed in ${SETTINGS_PATH}` };
  } catch {
    return { status: "warn", name, detail: `${SETTINGS_PATH} is not a valid settings object; ${fix}` };
  }
  return { status: "warn", name, detail: fix };
}

export const gemini: Harness = {
  name: "gemini",
  label: "Gemini CLI",
  exe: GEMINI.binary,
  program: () => [GEMINI.binary],
  soldierArgs: (model) => soldierArgs(model),
  stateHooks: ({ vx, hooksDir }) => soldierHome({ vx, hooksDir, userGeminiDir: userGeminiDir(), ...readUser(userGeminiDir()) }),
  ready: READY_RE,
  unsent: UNSENT_RE,
  checkModelEffort(_model, effort) {
    if (effort !== undefined) throw new UsageError("--effort is not supported for harness gemini", "dispatch");
  },
  launchRefusal: () => undefined,
  // Its sessions live under the soldier's own GEMINI_CLI_HOME and the camp's path, so "latest"
  // is this soldier's.
  continueArgs: async () => [...GEMINI.continueArgs],
  commander: {
    wake: { kind: "idle-prompt" },
    installed: () => false,
    plan: (p) => p.json(SETTINGS_PATH, mergeGeminiSettings, "Gemini CLI reads the commander block from AGENTS.md or CLAUDE.md"),
    fileChecks: (top) => [contextCheck(top)],
    liveChecks: async () => [],
    nonInteractive,
    // No await runs for it (idle-prompt), so none re-arms by a turn.
    rearmsByTurn: () => false,
    // Gemini CLI 0.61 in a plain tmux pane (CMDR-10), seen: its shell tool's commands get
    // GEMINI_CLI=1 and no pid of it; its own process is `node [--max-old-space-size=...] .../gemini`
    // (it relaunches itself under node once), the shell's parent. Busy: `(esc to cancel, 6s)`. The
    // input line starts `>` (`*` in YOLO mode) and shows a placeholder while empty; a person's
    // draft replaces it. Past prompts show ` > text` above, so the input line is the last one.
    tmuxCommander: {
      marker: "GEMINI_CLI",
      program: /^gemini$/,
      busy: BUSY_RE,
      mark: [">", "*"],
      emptyInput: /^(?:Type your message or @path\/to\/file)?$/,
    },
  },
};
