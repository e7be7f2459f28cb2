/** Pi: soldier states from its `-e` extension; commander woken by its wake extension (CMDR-07). */
import { join } from "node:path";
import { readTextIfExists } from "../state/files";
import { PI_EXTENSION } from "./pi-extension";
import { PI_EXTENSION_PATH, PI_SETTINGS_PATH, mergePiSettings } from "./pi-settings";
import { piExtension } from "./state-hook-templates";
import type { Harness } from "./types";
import { wakeFileCheck } from "./wake-check";
import { piUsage } from "./usage/pi";

export const pi: Harness = {
  name: "pi",
  label: "Pi",
  exe: "pi",
  program: () => ["pi"],
  soldierArgs: (model, effort) => [...(model ? ["--model", model] : []), ...(effort ? ["--thinking", effort] : [])],
  stateHooks({ vx, hooksDir }) {
    const path = join(hooksDir, "pi-state.ts");
    return { args: ["-e", path], env: {}, files: [{ path, content: piExtension(vx) }] };
  },
  ready: "still",
  unsent: undefined,
  checkModelEffort: () => undefined,
  launchRefusal: () => undefined,
  continueArgs: async () => ["--continue"],
  usage: piUsage,
  commander: {
    wake: { kind: "hook" },
    installed: (top) => readTextIfExists(join(top, PI_EXTENSION_PATH)) !== undefined,
    plan(p) {
      p.wakeFile(PI_EXTENSION_PATH, PI_EXTENSION, "the Pi commander's wake extension");
      p.json(PI_SETTINGS_PATH, mergePiSettings, "Pi loads the project's skills");
    },
    fileChecks(top, cwd) {
      const where = cwd === top ? " (start Pi here, at the project root)" : ` (start Pi at the project root, ${top}: it loads .pi/ only from its working directory)`;
      return [wakeFileCheck(top, "Pi wake extension", PI_EXTENSION_PATH, PI_EXTENSION, where)];
    },
    liveChecks: async () => [],
    nonInteractive: () => false,
    rearmsByTurn: () => false,
    tmuxCommander: undefined,
  },
};
