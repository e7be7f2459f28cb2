/**
 * The Claude Code Stop hook that wakes the commander (SPEC HOOK-01..07, DOC-09).
 *
 * Everything here works on generic parsed JSON: `.claude/settings.json` belongs to the user and
 * holds far more than vx's entry, so nothing outside the vexillum handlers may change, and the
 * order of keys must survive so that a rewrite produces a minimal diff.
 */

import { SettingsShapeError } from "../errors";
import { COUNTS } from "../time";

/**
 * HOOK-01/02: a one-line POSIX wrapper. It looks for vx itself because Claude Code runs hooks in a
 * shell that may never have read the user's profile, and it `exec`s so the await stays a direct
 * child of the hook runner (AWT-06). No absolute path of the local vx is written (HOOK-03).
 */
export const HOOK_COMMAND = `sh -c 'for v in "$(command -v vx 2>/dev/null)" "$HOME/.local/bin/vx" /opt/homebrew/bin/vx /usr/local/bin/vx /home/linuxbrew/.linuxbrew/bin/vx; do [ -f "$v" ] && [ -x "$v" ] && exec "$v" sentinel await; done; echo "vx: not found, so the sentinel Stop hook cannot wake the commander. Install vx (brew or curl) or put its directory on PATH, then run: vx doctor" >&2; exit 0'`;

type HookEntry = { type: "command"; command: string; asyncRewake: true; timeout: typeof COUNTS.hookTimeoutSeconds };

/**
 * A fresh copy of the current entry, keys in HOOK-01 order. `timeout` is never scaled: a day, so
 * the await it runs can listen that long (AWT-05); an entry with seed 000's 3600 is outdated,
 * refreshed by `vx upgrade` and flagged by doctor (DOC-09).
 */
export function hookEntry(): HookEntry {
  return { type: "command", command: HOOK_COMMAND, asyncRewake: true, timeout: COUNTS.hookTimeoutSeconds };
}

// A runner word: `vx` or `vexillum`, bare or at the end of a path, optionally quoted, followed by
// the subcommand. The left boundary excludes word characters, `-` and `.` so `myvx`, `vx-dev` or
// `foo.vx` never count.
const RUNNER = /(?:^|[\s"'`/;&|()=])(?:vx|vexillum)["']?\s+sentinel\s+(?:await|drain)(?![\w-])/;
// The wrapper runs the candidate through a variable (`exec "$v" sentinel await`), so the runner
// word only appears among the candidates it searches.
const WRAPPER_EXEC = /\bexec\s+["']?\$\{?\w+\}?["']?\s+sentinel\s+(?:await|drain)(?![\w-])/;
const WRAPPER_CANDIDATE = /(?:command\s+-v\s+(?:vx|vexillum)\b|\/(?:vx|vexillum)(?![\w.-]))/;

/** HOOK-05: does this handler command run vx (or the older `vexillum`) `sentinel await|drain`? */
export function isVexillumHandler(command: unknown): boolean {
  if (typeof command !== "string") return false;
  if (RUNNER.test(command)) return true;
  return WRAPPER_EXEC.test(command) && WRAPPER_CANDIDATE.test(command);
}

/**
 * HOOK-05 merge. Returns a new object (the input is never mutated) and whether its content,
 * key order included, differs from the input. Rules:
 * - every vexillum handler is found in `hooks.Stop[*].hooks[*]`, in document order; the first is
 *   replaced in place by the current entry (extra keys a user added to it go too: the entry is
 *   vx's), the others are removed, and a matcher group emptied by that removal is dropped;
 * - with none, `{"hooks":[entry]}` is appended to `hooks.Stop`, creating `hooks` and `Stop` (as
 *   the last key of their parent) when missing;
 * - anything vx does not recognise (non-object groups or handlers, groups whose `hooks` is not an
 *   array, other events, other keys) is kept as it is.
 * Throws SettingsShapeError when the root is not an object, `hooks` is present but not an object,
 * or `hooks.Stop` is present but not an array (`null` included: only a missing key is created).
 */
export function mergeStopHook(settings: unknown): { next: Record<string, unknown>; changed: boolean } {
  if (!isPlainObject(settings)) {
    throw new SettingsShapeError("settings.json must hold a JSON object at the top level", "");
  }
  const next = cloneJson(settings) as Record<string, unknown>;
  if (!Object.hasOwn(next, "hooks")) next.hooks = {};
  const hooks = next.hooks;
  if (!isPlainObject(hooks)) {
    throw new SettingsShapeError(`"hooks" must be an object, found ${describe(hooks)}`, "hooks");
  }
  if (!Object.hasOwn(hooks, "Stop")) hooks.Stop = [];
  const stop = hooks.Stop;
  if (!Array.isArray(stop)) {
    throw new SettingsShapeError(`"hooks.Stop" must be an array, found ${describe(stop)}`, "hooks.Stop");
  }

  let placed = false;
  const groups: unknown[] = [];
  for (const group of stop) {
    if (!isPlainObject(group) || !Array.isArray(group.hooks)) {
      groups.push(group);
      continue;
    }
    const kept: unknown[] = [];
    let removed = false;
    for (const handler of group.hooks) {
      if (!isPlainObject(handler) || !isVexillumHandler(handlerCommand(handler))) {
        kept.push(handler);
      } else if (!placed) {
        kept.push(hookEntry());
        placed = true;
      } else {
        removed = true;
      }
    }
    if (removed && kept.length === 0) continue;
    group.hooks = kept;
    groups.push(group);
  }
  if (!placed) groups.push({ hooks: [hookEntry()] });
  hooks.Stop = groups;

  return { next, changed: JSON.stringify(next) !== JSON.stringify(settings) };
}

/**
 * DOC-09. `registered`: at least one vexillum Stop handler and every one of them deep-equal to the
 * current entry (key order ignored). `outdated`: some vexillum handler differs. `missing`: none,
 * or a shape that cannot hold one (doctor reports, it never throws).
 */
export function hookState(settings: unknown): "registered" | "outdated" | "missing" {
  if (!isPlainObject(settings) || !isPlainObject(settings.hooks)) return "missing";
  const stop = settings.hooks.Stop;
  if (!Array.isArray(stop)) return "missing";
  const entry = hookEntry();
  let current = 0;
  let outdated = 0;
  for (const group of stop) {
    if (!isPlainObject(group) || !Array.isArray(group.hooks)) continue;
    for (const handler of group.hooks) {
      if (!isPlainObject(handler) || !isVexillumHandler(handlerCommand(handler))) continue;
      if (deepEqual(handler, entry)) current++;
      else outdated++;
    }
  }
  if (outdated > 0) return "outdated";
  return current > 0 ? "registered" : "missing";
}

/** HOOK-07: 2-space indentation and a trailing newline, so two runs give byte-identical files. */
export function renderJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

// --- internal ---

// The exec form (`args` present) spawns `command` with those arguments, so
// `{"command":"vx","args":["sentinel","await"]}` is a vexillum handler too.
function handlerCommand(handler: Record<string, unknown>): unknown {
  const { command, args } = handler;
  if (typeof command !== "string") return command;
  if (Array.isArray(args) && args.every((a) => typeof a === "string")) {
    return [command, ...args].join(" ");
  }
  return command;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function cloneJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}
