/**
 * The OpenCode commander's wake plugin (CMDR-08a), the Pi extension's twin, written to
 * `.vexillum/opencode-wake.ts` and named in the project's `opencode.json` `plugin` list (a plugin
 * under `.opencode/` would make OpenCode install its SDK into every checkout, camps included,
 * blocking start-up for as long as that takes). Inside the OpenCode TUI it keeps one
 * `vx sentinel await` child and hands each wake to this process's own root session with the
 * in-process client's `session.promptAsync`, only once that session is idle: a prompt sent into a
 * running turn lands after its next tool step, or is dropped by an interrupt. Observed against
 * OpenCode 1.18.33 (the compat suite runs it). The program itself is programs/opencode-wake.ts.
 */
import { SettingsShapeError } from "../errors";
import * as program from "./programs/opencode-wake.ts" with { type: "text" };
import { wakeProgram } from "./wake-common";

/** Where the plugin lives in the project, and the entry `opencode.json` gets for it. */
export const OPENCODE_PLUGIN_PATH = ".vexillum/opencode-wake.ts";
export const OPENCODE_PLUGIN_ENTRY = `./${OPENCODE_PLUGIN_PATH}`;
export const OPENCODE_CONFIG_PATH = "opencode.json";

/** OpenCode writes this key first into any opencode.json it loads that lacks it. */
const OPENCODE_SCHEMA = "https://opencode.ai/config.json";

/**
 * `opencode.json` with the plugin in its `plugin` list, every other key and entry kept (a new
 * `plugin` key goes last). `$schema` is added first when missing, as OpenCode itself would on its
 * next start, so the committed file stays as OpenCode leaves it. Throws SettingsShapeError when the
 * root is not an object or `plugin` is not an array.
 */
export function mergeOpencodeConfig(config: unknown): { next: Record<string, unknown>; changed: boolean } {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new SettingsShapeError("opencode.json must hold a JSON object at the top level", "");
  }
  const copy = JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
  const next: Record<string, unknown> = Object.hasOwn(copy, "$schema") ? copy : { $schema: OPENCODE_SCHEMA, ...copy };
  let changed = next !== copy;
  if (!Object.hasOwn(next, "plugin")) {
    next.plugin = [OPENCODE_PLUGIN_ENTRY];
    changed = true;
  } else if (!Array.isArray(next.plugin)) {
    throw new SettingsShapeError('"plugin" must be an array of plugin names or paths', "plugin");
  } else if (!hasOpencodePlugin(next)) {
    next.plugin.push(OPENCODE_PLUGIN_ENTRY);
    changed = true;
  }
  return { next, changed };
}

/** Whether a parsed `opencode.json` lists the plugin (with or without the leading `./`). */
export function hasOpencodePlugin(config: unknown): boolean {
  const list = (config as { plugin?: unknown } | null)?.plugin;
  return Array.isArray(list) && list.some((e) => e === OPENCODE_PLUGIN_ENTRY || e === OPENCODE_PLUGIN_PATH);
}

export const OPENCODE_PLUGIN: string = wakeProgram(program);
