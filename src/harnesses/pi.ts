/** Pi: as a soldier (its `-e` extension reports states) and as a commander (its wake extension, CMDR-07). */
import { join } from "node:path";
import { readTextIfExists } from "../state/files";
import { PI_EXTENSION } from "./pi-extension";
import { PI_EXTENSION_PATH, PI_SETTINGS_PATH, mergePiSettings } from "./pi-settings";
import { piExtension } from "./state-hook-templates";
import type { Harness } from "./types";
import { wakeFileCheck } from "./wake-check";

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
  // Pi has no fixed text once it takes input, and shows no folder-trust dialog.
  ready: "still",
  unsent: undefined,
  checkModelEffort: () => undefined,
  launchRefusal: () => undefined,
  // A camp is its own worktree, so "the last session in this directory" is the soldier's own.
  continueArgs: async () => ["--continue"],
  commander: {
    wake: { kind: "hook" },
    installed: (top) => readTextIfExists(join(top, PI_EXTENSION_PATH)) !== undefined,
    plan(p) {
      p.wakeFile(PI_EXTENSION_PATH, PI_EXTENSION, "the Pi commander's wake extension");
      p.json(PI_SETTINGS_PATH, mergePiSettings, "Pi loads the project's skills");
    },
    fileChecks(top, cwd) {
      // Pi loads .pi/ only from its working directory.
      const where = cwd === top ? " (start Pi here, at the project root)" : ` (start Pi at the project root, ${top}: it loads .pi/ only from its working directory)`;
      return [wakeFileCheck(top, "Pi wake extension", PI_EXTENSION_PATH, PI_EXTENSION, where)];
    },
    liveChecks: async () => [],
    nonInteractive: () => false,
    // Its extension starts the next await itself on a quiet exit, at no turn's cost.
    rearmsByTurn: () => false,
    tmuxCommander: undefined,
  },
};
