// The Claude Code Stop hook that wakes the commander (HOOK-01..07, DOC-09). `.claude/settings.json` is the user's: nothing
// outside vx's handlers changes, and key order survives so a rewrite gives a minimal diff.

import { SettingsShapeError } from "../errors";
import { COUNTS } from "../time";

/** HOOK-01/02: finds vx itself (a hook's shell may not have read the profile), no local path written (HOOK-03); `exec` keeps the await a direct child (AWT-06). */
export const HOOK_COMMAND = `sh -c 'for v in "$(command -v vx 2>/dev/null)" "$HOME/.local/bin/vx" /opt/homebrew/bin/vx /usr/local/bin/vx /home/linuxbrew/.linuxbrew/bin/vx; do [ -f "$v" ] && [ -x "$v" ] && exec "$v" sentinel await; done; echo "vx: not found, so the sentinel Stop hook cannot wake the commander. Install vx (brew or curl) or put its directory on PATH, then run: vx doctor" >&2; exit 0'`;

type HookEntry = { type: "command"; command: string; asyncRewake: true; timeout: typeof COUNTS.hookTimeoutSeconds };

/** The current entry, keys in HOOK-01 order; `timeout` is never scaled: a day, so the await can listen that long (AWT-05). */
export function hookEntry(): HookEntry {
  return { type: "command", command: HOOK_COMMAND, asyncRewake: true, timeout: COUNTS.hookTimeoutSeconds };
}

// `vx` or `vexillum`, bare or ending a path, maybe quoted, then the subcommand; the left boundary keeps out `myvx`, `vx-dev`, `foo.vx`.
const RUNNER = /(?:^|[\s"'`/;&|()=])(?:vx|vexillum)["']?\s+sentinel\s+(?:await|drain)(?![\w-])/;
// The wrapper execs a variable (`exec "$v" sentinel await`): the runner word appears only among its candidates.
const WRAPPER_EXEC = /\bexec\s+["']?\$\{?\w+\}?["']?\s+sentinel\s+(?:await|drain)(?![\w-])/;
const WRAPPER_CANDIDATE = /(?:command\s+-v\s+(?:vx|vexillum)\b|\/(?:vx|vexillum)(?![\w.-]))/;

/** HOOK-05: does this handler command run vx (or the older `vexillum`) `sentinel await|drain`? */
export function isVexillumHandler(command: unknown): boolean {
  if (typeof command !== "string") return false;
  if (RUNNER.test(command)) return true;
  return WRAPPER_EXEC.test(command) && WRAPPER_CANDIDATE.test(command);
}

/**
 * HOOK-05 merge into a copy (`changed` counts key order). The first vexillum handler becomes the entry in place (a user's extra
 * keys go: the entry is vx's), the rest are removed with any group they empty; with none, a group is appended. Anything
 * unrecognised is kept; a root, `hooks` or `hooks.Stop` of the wrong shape (`null` too) throws SettingsShapeError.
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

/** DOC-09: `registered` (every vexillum handler deep-equals the entry), `outdated` (one differs), `missing` (none, or no shape for one). */
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

// The exec form (`args` present) spawns `command` with them: `{"command":"vx","args":["sentinel","await"]}` counts too.
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
