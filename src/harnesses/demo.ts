/**
 * The `demo` harness (CMD-DEMO-01/02): a scripted stand-in for an AI coding agent that `vx demo`
 * runs in a tmux pane (`demo/soldier.ts`, started as the hidden `vx __demo-soldier`). It takes its
 * prompt like a real TUI (bracketed paste, then Enter), works in its camp and reports its turns
 * through `vx report`, so dispatch, the sentinel, wakes, decide, prompt, land and strike run
 * exactly as for a real harness. It needs no API key and no binary besides vx itself. It is never
 * offered (not in LISTED_HARNESS_NAMES) and is refused outside `vx demo` and on herdr, whose
 * `agent start` starts a harness by name in a shell. It is no commander.
 */
import type { Harness } from "./types";

/** The command that runs it, the only one that may (its environment carries DEMO_ENV). */
const DEMO_COMMAND = "demo";
/** The hidden first argument `cli.ts` answers by running the scripted soldier. */
const DEMO_SOLDIER = "__demo-soldier";
/** Set by `vx demo` for the commands it runs: the only place `--harness demo` is accepted. */
export const DEMO_ENV = "VX_DEMO";
/** The hook command the soldier runs for its states (a path to vx, like Claude Code's hook entries). */
export const DEMO_REPORT_ENV = "VX_DEMO_REPORT";
/** The line the soldier shows when it takes input: the tmux launch's readiness test. */
export const DEMO_PROMPT = "demo ›";

export const demo: Harness = {
  name: "demo",
  label: "vx demo soldier",
  // vx itself (`program`); doctor lists only the listed harnesses, so nothing looks this up.
  exe: "vx",
  program: (self) => [...self, DEMO_SOLDIER],
  // It follows its script, whatever model or effort a flag names.
  soldierArgs: () => [],
  // The soldier runs `<vx> report <state>` itself, as a harness runs its hooks.
  stateHooks: ({ vx }) => ({ args: [], env: { [DEMO_REPORT_ENV]: vx }, files: [] }),
  ready: /^demo ›/m,
  unsent: undefined,
  checkModelEffort: () => undefined,
  launchRefusal(env, backend) {
    if (backend !== "tmux") return "the demo harness runs only on the tmux backend - use --backend tmux (or just run: vx demo)";
    if (env[DEMO_ENV] !== "1") return `the demo harness is for 'vx ${DEMO_COMMAND}' only - run: vx ${DEMO_COMMAND}`;
    return undefined;
  },
  // It keeps no conversation: started again in its camp, it simply takes the next prompt.
  continueArgs: async () => undefined,
  // Not a commander (COMMANDER_NAMES leaves it out, so no config or registry entry names it as
  // one); the interface asks every harness for this side, so it is inert.
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
