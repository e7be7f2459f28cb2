/** Gemini CLI (HRN-02): hooks in a private GEMINI_CLI_HOME, the only settings a soldier can use; commander typed to (CMDR-08). */
import { lstatSync, readFileSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Check } from "../check";
import { UsageError } from "../errors";
import { SettingsShapeError } from "../errors";
import { readTextIfExists } from "../state/files";
import { shellQuote } from "./hook-shell";
import type { Harness, HookedLaunch } from "./types";
import { geminiUsage } from "./usage/gemini";

export const GEMINI = {
  name: "gemini",
  binary: "gemini",
  pkg: "@google/gemini-cli",
  testedVersion: "0.61.0",
  versionArgs: ["--version"],
  continueArgs: ["--resume", "latest"],
  effort: undefined,
} as const;

/** HRD-04: `--skip-trust` trusts the camp for this session only, recording nothing; yolo is the others' bypass. */
export function soldierArgs(model?: string): string[] {
  return ["--skip-trust", "--approval-mode", "yolo", ...(model ? ["--model", model] : [])];
}

/** The box stays during a turn, so idle is READY_RE without BUSY_RE; a prompt sent before SessionStart can stay in it. */
export const READY_RE = /Type your message or @path\/to\/file/;
/** Text in the box, not its placeholder: a pasted prompt whose Enter was dropped. `*` in YOLO mode. */
const UNSENT_RE = /^ [>*] +(?!Type your message or @path\/to\/file)\S/m;
const BUSY_RE = /\(esc to cancel, \d+s\)/;
export const TRUST_RE = /Do you trust the files in this folder\?/;
export const DECISION_RE = /Apply this change\?|Allow execution of|● 1\. Allow once/;

const COMMANDER = { wake: "typed", contextFile: "GEMINI.md", settingsFile: ".gemini/settings.json", skillsDirs: [".gemini/skills", ".agents/skills"] } as const;

type State = "working" | "idle" | "blocked";

/** SessionStart is idle once initialised, when a prompt can first be sent; the hooks' `timeout` is in milliseconds. */
const STATE_EVENTS: readonly [event: string, state: State][] = [
  ["SessionStart", "idle"],
  ["BeforeAgent", "working"],
  ["Notification", "blocked"],
  ["AfterTool", "working"],
  ["AfterAgent", "idle"],
];

function stateHooksSettings(vx: string): Record<string, unknown[]> {
  const hooks: Record<string, unknown[]> = {};
  for (const [event, state] of STATE_EVENTS) {
    // Only a tool's confirmation is a decision.
    const matcher = event === "Notification" ? { matcher: "ToolPermission" } : {};
    hooks[event] = [{ ...matcher, hooks: [{ name: `vx-report-${state}`, type: "command", command: `${shellQuote(vx)} report ${state}`, timeout: 10_000 }] }];
  }
  return hooks;
}

/** The user's settings plus vx's hooks; every other `.gemini` entry is linked, so credentials, sessions and trust stay theirs. */
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

function userGeminiDir(): string {
  return join(process.env.GEMINI_CLI_HOME || process.env.HOME || homedir(), ".gemini");
}

/** An unreadable or invalid settings file is left out: the soldier then has vx's hooks only. */
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

// The commander block is in AGENTS.md or CLAUDE.md (SCF-03); Gemini CLI reads only GEMINI.md unless `context.fileName` says more.
const CONTEXT_FILES = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"];
const SETTINGS_PATH = COMMANDER.settingsFile;

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
  // A resumed session's prompt sent before SessionStart vanished: the restored conversation replaced it (docs/real-clients.md).
  startReport: true,
  checkModelEffort(_model, effort) {
    if (effort !== undefined) throw new UsageError("--effort is not supported for harness gemini", "dispatch");
  },
  launchRefusal: () => undefined,
  // Sessions are per GEMINI_CLI_HOME and camp, so "latest" is this soldier's.
  continueArgs: async () => [...GEMINI.continueArgs],
  usage: geminiUsage,
  commander: {
    wake: { kind: "idle-prompt" },
    installed: () => false,
    plan: (p) => p.json(SETTINGS_PATH, mergeGeminiSettings, "Gemini CLI reads the commander block from AGENTS.md or CLAUDE.md"),
    fileChecks: (top) => [contextCheck(top)],
    liveChecks: async () => [],
    nonInteractive,
    rearmsByTurn: () => false,
    tmuxCommander: {
      marker: "GEMINI_CLI",
      program: /^gemini$/,
      busy: BUSY_RE,
      mark: [">", "*"],
      emptyInput: /^(?:Type your message or @path\/to\/file)?$/,
    },
  },
};
