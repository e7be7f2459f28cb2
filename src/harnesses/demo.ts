/** `vx demo`'s scripted soldier (CMD-DEMO-01/02); refused on herdr, whose `agent start` starts a harness by name in a shell. */
import type { Harness } from "./types";

const DEMO_COMMAND = "demo";
const DEMO_SOLDIER = "__demo-soldier";
/** Set by `vx demo` for the commands it runs: the only place `--harness demo` is accepted. */
export const DEMO_ENV = "VX_DEMO";
/** The vx path the soldier runs `report <state>` with. */
export const DEMO_REPORT_ENV = "VX_DEMO_REPORT";
export const DEMO_PROMPT = "demo ›";

export const demo: Harness = {
  name: "demo",
  label: "vx demo soldier",
  exe: "vx",
  program: (self) => [...self, DEMO_SOLDIER],
  soldierArgs: () => [],
  stateHooks: ({ vx }) => ({ args: [], env: { [DEMO_REPORT_ENV]: vx }, files: [] }),
  ready: /^demo ›/m,
  unsent: undefined,
  checkModelEffort: () => undefined,
  launchRefusal(env, backend) {
    if (backend !== "tmux") return "the demo harness runs only on the tmux backend - use --backend tmux (or just run: vx demo)";
    if (env[DEMO_ENV] !== "1") return `the demo harness is for 'vx ${DEMO_COMMAND}' only - run: vx ${DEMO_COMMAND}`;
    return undefined;
  },
  usage: () => ({ unknown: "the demo soldier runs no model" }),
  continueArgs: async () => undefined,
  // Inert: COMMANDER_NAMES leaves it out.
  commander: {
    wake: { kind: "hook" },
    installed: () => false,
    plan: () => undefined,
    fileChecks: () => [],
    liveChecks: async () => [],
    nonInteractive: () => false,
    rearmsByTurn: () => false,
    tmuxCommander: undefined,
  },
};
