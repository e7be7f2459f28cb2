/**
 * The Pi commander's wake extension (SPEC CMDR-07) and the project Pi settings it relies on
 * (SCF-07). The extension is a template: it runs inside Pi (loaded by Pi's TypeScript loader, with
 * Node built-ins only), never inside vx, so it must not import anything from this repository.
 */

import { SettingsShapeError } from "./hook";

/** The skills entry `.pi/settings.json` needs; Pi resolves it relative to `.pi/`. */
export const PI_SKILLS_ENTRY = "../.claude/skills";

/**
 * Content of `.pi/extensions/vexillum-wake.ts`. In a project that is not a camp it keeps one
 * `vx sentinel await` running as a child of Pi: exit 2 hands the stderr text to the model with
 * `pi.sendUserMessage(text, {deliverAs: "followUp"})` and starts the next await; exit 0 after at
 * least 60 s (a give-up) starts the next await; a quicker exit stops until the next session start;
 * text Pi refused is retried every 5 s; `session_shutdown` kills the child. Durations follow
 * VX_TIME_SCALE. Written without backticks or "${" so it can live in a raw template literal.
 */
export const PI_EXTENSION: string = String.raw`// vexillum wake extension for Pi, written by "vx init" ("vx doctor" reports hand edits).
// Pi has no Stop hook, so this runs the same "vx sentinel await" the Claude Code hook runs, as a
// child of Pi, and hands each wake it prints to the model as a follow-up message.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, join, resolve, sep } from "node:path";

type Ctx = {
  cwd: string;
  hasUI?: boolean;
  ui?: { notify(message: string, level?: "info" | "warning" | "error"): void };
};
type Pi = {
  on(event: "session_start" | "session_shutdown", handler: (event: unknown, ctx: Ctx) => unknown): void;
  sendUserMessage(text: string, options: { deliverAs: "followUp" }): void;
};

const NOT_FOUND =
  "vx: not found, so the vexillum wake extension cannot wake the commander. Install vx (brew or curl) or put its directory on PATH, then run: vx doctor";

// Wakes Pi could not accept yet. Kept on globalThis because Pi tears this extension down and
// runs the factory again on /new, /resume, /fork and /reload, and the await already consumed them.
const shared = globalThis as { __vexillumWakePending?: string[] };
const pending: string[] = (shared.__vexillumWakePending ??= []);

// VX_TIME_SCALE multiplies every built-in duration, these two included (ENV-07).
function scaled(ms: number): number {
  const raw = process.env.VX_TIME_SCALE ?? "";
  const n = Number(raw);
  const ok = /^\s*[0-9]*\.?[0-9]+(e[-+]?[0-9]+)?\s*$/i.test(raw) && Number.isFinite(n) && n > 0;
  return ms * (ok ? n : 1);
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// The same places the Stop hook looks, so a vx missing from Pi's PATH is still found.
function findVx(): string | undefined {
  const home = process.env.HOME ?? "";
  const candidates = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "")
    .map((dir) => join(dir, "vx"));
  if (home !== "") candidates.push(join(home, ".local", "bin", "vx"));
  candidates.push("/opt/homebrew/bin/vx", "/usr/local/bin/vx", "/home/linuxbrew/.linuxbrew/bin/vx");
  return candidates.find(isExecutableFile);
}

function gitToplevel(cwd: string): Promise<string | undefined> {
  return new Promise((done) => {
    execFile("git", ["rev-parse", "--show-toplevel"], { cwd }, (error, stdout) => {
      const top = String(stdout ?? "").trim();
      done(error || top === "" ? undefined : top);
    });
  });
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

// A camp is a worktree under the state root; its soldier is not a commander.
function isCamp(toplevel: string): boolean {
  const home = process.env.HOME ?? "";
  if (home === "") return false;
  const root = real(join(home, ".vexillum"));
  const top = real(toplevel);
  return top === root || top.startsWith(root + sep);
}

export default function vexillumWake(pi: Pi): void {
  const retryMs = scaled(5_000);
  const giveUpMs = scaled(60_000);
  // Bumped by every session start and shutdown, so callbacks of an older session do nothing.
  let session = 0;
  let cwd = process.cwd();
  let child: ChildProcess | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let warned = false;

  function deliver(): void {
    while (pending.length > 0) {
      try {
        pi.sendUserMessage(pending[0], { deliverAs: "followUp" });
      } catch {
        scheduleRetry();
        return;
      }
      pending.shift();
    }
  }

  function scheduleRetry(): void {
    if (retry !== undefined) return;
    const mine = session;
    retry = setTimeout(() => {
      retry = undefined;
      if (mine === session) deliver();
    }, retryMs);
  }

  function startAwait(mine: number, ctx: Ctx): void {
    if (mine !== session || child !== undefined) return;
    const vx = findVx();
    if (vx === undefined) {
      if (!warned && ctx.hasUI) ctx.ui?.notify(NOT_FOUND, "warning");
      warned = true;
      return;
    }
    const startedAt = Date.now();
    let stderr = "";
    let finished = false;
    let proc: ChildProcess;
    try {
      proc = spawn(vx, ["sentinel", "await"], { cwd, env: process.env, stdio: ["ignore", "ignore", "pipe"] });
    } catch {
      return;
    }
    child = proc;
    // Never hold Pi open at exit: an await whose parent went away stops by itself (AWT-06).
    proc.unref();
    (proc.stderr as { unref?: () => void } | null)?.unref?.();
    proc.stderr?.setEncoding("utf8");
    proc.stderr?.on("data", (chunk: string) => {
      stderr += chunk;
    });
    const finish = (code: number | null): void => {
      if (finished) return;
      finished = true;
      if (child === proc) child = undefined;
      if (mine !== session) return;
      const text = stderr.replace(/\s+$/, "");
      if (code === 2 && text !== "") {
        pending.push(text);
        deliver();
        startAwait(mine, ctx);
      } else if (Date.now() - startedAt >= giveUpMs) {
        // A give-up after 55 minutes: keep listening.
        startAwait(mine, ctx);
      }
      // A quick exit means there is nothing to wait for here (no herdr pane, HOME unset, ...):
      // stay quiet until the next session start instead of spinning.
    };
    proc.on("error", () => finish(null));
    proc.on("close", (code) => finish(code));
  }

  pi.on("session_start", (_event, ctx) => {
    const mine = ++session;
    cwd = ctx.cwd || process.cwd();
    deliver();
    void gitToplevel(cwd).then((top) => {
      if (mine === session && top !== undefined && !isCamp(top)) startAwait(mine, ctx);
    });
  });

  pi.on("session_shutdown", () => {
    session++;
    if (retry !== undefined) clearTimeout(retry);
    retry = undefined;
    const proc = child;
    child = undefined;
    // SIGTERM makes the await put its claimed wakes back for the next listener (AWT-11).
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
  });
}
`;

/**
 * SCF-07: make Pi load the project's skills from `.claude/skills`, keeping every other key and
 * entry as it is (the new key goes last). An entry for that path already there, as an include
 * (`../.claude/skills`, with `./` or a trailing `/`, or forced with `+`) or as an exclusion
 * (`!` or `-`), is the user's decision and is left alone. Throws SettingsShapeError when the root
 * is not an object or `skills` is not an array of entries.
 */
export function mergePiSettings(settings: unknown): { next: Record<string, unknown>; changed: boolean } {
  if (typeof settings !== "object" || settings === null || Array.isArray(settings)) {
    throw new SettingsShapeError(".pi/settings.json must hold a JSON object at the top level", "");
  }
  const next = JSON.parse(JSON.stringify(settings)) as Record<string, unknown>;
  if (!Object.hasOwn(next, "skills")) {
    next.skills = [PI_SKILLS_ENTRY];
    return { next, changed: true };
  }
  const skills = next.skills;
  if (!Array.isArray(skills)) {
    throw new SettingsShapeError('"skills" must be an array of paths', "skills");
  }
  if (skills.some((entry) => typeof entry === "string" && samePath(entry))) return { next, changed: false };
  skills.push(PI_SKILLS_ENTRY);
  return { next, changed: true };
}

// --- internal ---

function samePath(entry: string): boolean {
  const path = entry
    .trim()
    .replace(/^[!+-]/, "")
    .replace(/^\.\/(?=\.\.)/, "")
    .replace(/\/+$/, "");
  return path === PI_SKILLS_ENTRY;
}
