/** OpenCode's wake plugin (CMDR-08a), named in `opencode.json`: under `.opencode/` OpenCode would install its SDK in every camp. */
import { SettingsShapeError } from "../errors";
import * as program from "./programs/opencode-wake.ts" with { type: "text" };
import { wakeProgram } from "./wake-common";

export const OPENCODE_PLUGIN_PATH = ".vexillum/opencode-wake.ts";
export const OPENCODE_PLUGIN_ENTRY = `./${OPENCODE_PLUGIN_PATH}`;
export const OPENCODE_CONFIG_PATH = "opencode.json";

const OPENCODE_SCHEMA = "https://opencode.ai/config.json";

/** Adds the plugin, keeping every other key; `$schema` goes first when missing, so the file stays as OpenCode would leave it. */
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

export function hasOpencodePlugin(config: unknown): boolean {
  const list = (config as { plugin?: unknown } | null)?.plugin;
  return Array.isArray(list) && list.some((e) => e === OPENCODE_PLUGIN_ENTRY || e === OPENCODE_PLUGIN_PATH);
}

export const OPENCODE_PLUGIN: string = wakeProgram(program);
