/**
 * OpenCode: as a soldier (a file:// plugin given through OPENCODE_CONFIG_CONTENT reports states) and
 * as a commander (its wake plugin, CMDR-08a; no async hook, so the sentinel also types wakes into its
 * idle pane).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Check } from "../doctor/report";
import { UsageError } from "../errors";
import { OPENCODE_CONFIG_PATH, OPENCODE_PLUGIN, OPENCODE_PLUGIN_ENTRY, OPENCODE_PLUGIN_PATH, hasOpencodePlugin, mergeOpencodeConfig } from "../scaffold/opencode-plugin";
import { readTextIfExists } from "../state/files";
import { opencodePlugin } from "./state-hook-templates";
import type { Harness } from "./types";
import { wakeFileCheck } from "./wake-check";

function configCheck(top: string): Check {
  const name = "OpenCode loads the wake plugin";
  const fix = `add "${OPENCODE_PLUGIN_ENTRY}" to the "plugin" list of opencode.json (vx init does it), or OpenCode never starts the plugin`;
  const text = readTextIfExists(join(top, OPENCODE_CONFIG_PATH));
  try {
    if (text !== undefined && hasOpencodePlugin(JSON.parse(text))) return { status: "ok", name, detail: "listed in opencode.json" };
  } catch {
    return { status: "warn", name, detail: `opencode.json has invalid JSON; ${fix}` };
  }
  return { status: "warn", name, detail: fix };
}

export const opencode: Harness = {
  name: "opencode",
  label: "OpenCode",
  exe: "opencode",
  soldierArgs: (model) => (model ? ["--model", model] : []),
  // OPENCODE_CONFIG_CONTENT is one more config layer over the user's and the project's (their
  // providers and plugins still load); a file:// plugin is loaded as it is, with nothing installed
  // for it (a plugin under a config directory, OPENCODE_CONFIG_DIR's included, makes OpenCode
  // install its SDK beside it, and one under the camp's .opencode/ would dirty the camp).
  stateHooks({ vx, hooksDir }) {
    const path = join(hooksDir, "opencode-state.ts");
    return {
      args: [],
      env: { OPENCODE_CONFIG_CONTENT: JSON.stringify({ plugin: [pathToFileURL(path).href] }) },
      files: [{ path, content: opencodePlugin(vx) }],
    };
  },
  ready: /Ask anything/,
  unsent: undefined,
  checkModelEffort(_model, effort) {
    if (effort !== undefined) throw new UsageError("--effort is not supported for harness opencode", "dispatch");
  },
  launchRefusal: () => undefined,
  continueArgs: ["--continue"],
  commander: {
    // Typing into the pane can join an unsent draft, so only while it is idle.
    wake: { kind: "idle-prompt" },
    installed: (top) => readTextIfExists(join(top, OPENCODE_PLUGIN_PATH)) !== undefined,
    plan(p) {
      p.wakeFile(OPENCODE_PLUGIN_PATH, OPENCODE_PLUGIN, "the OpenCode commander's wake plugin");
      if (p.exists("opencode.jsonc") && !p.exists(OPENCODE_CONFIG_PATH)) {
        p.note(`opencode.jsonc: add "${OPENCODE_PLUGIN_ENTRY}" to its "plugin" list yourself, so OpenCode loads the wake plugin (vx edits only opencode.json)`);
      } else {
        p.json(OPENCODE_CONFIG_PATH, mergeOpencodeConfig, "OpenCode loads the wake plugin");
      }
    },
    fileChecks: (top) => [wakeFileCheck(top, "OpenCode wake plugin", OPENCODE_PLUGIN_PATH, OPENCODE_PLUGIN), configCheck(top)],
    liveChecks: async () => [],
    nonInteractive: () => false,
  },
};
