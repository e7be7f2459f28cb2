/**
 * Everything vx knows about the `demo` harness (CMD-DEMO-01/02), in one place so it can become a
 * harness module like the others: a scripted stand-in for an AI coding agent that `vx demo` runs
 * in a tmux pane (`demo/soldier.ts`, started as the hidden `vx __demo-soldier`). It takes its
 * prompt like a real TUI (bracketed paste, then Enter), works in its camp and reports its turns
 * through `vx report` hooks, so dispatch, the sentinel, wakes, decide, prompt, land and strike run
 * exactly as for a real harness. It needs no API key and no binary besides vx itself, and it is
 * refused outside `vx demo` and on herdr (which starts harnesses by name in a shell).
 */
import { VxError } from "../errors";
import type { Env } from "../state/paths";

/** The harness name on tasks (`state/schemas.ts` TASK_HARNESSES). */
export const DEMO_HARNESS = "demo";
/** The hidden first argument `cli.ts` answers by running the scripted soldier. */
export const DEMO_SOLDIER = "__demo-soldier";
/** Set by `vx demo` for the commands it runs: the only place `--harness demo` is accepted. */
export const DEMO_ENV = "VX_DEMO";
/** The hook command the soldier runs for its states (a path to vx, like Claude Code's hook entries). */
export const DEMO_REPORT_ENV = "VX_DEMO_REPORT";
/** The line the soldier shows when it takes input: launch-tmux's readiness test. */
export const DEMO_PROMPT = "demo ›";
export const DEMO_READY = /^demo ›/m;

/** The pane's program: vx itself (`self` is its argv: the binary, or bun and the entry script). */
export function demoArgv(self: readonly string[]): string[] {
  return [...self, DEMO_SOLDIER];
}

/** The state hooks: the soldier calls `<vx> report <state>` itself, as a harness runs its hooks. */
export function demoHooks(vx: string): { args: string[]; env: Record<string, string>; files: [] } {
  return { args: [], env: { [DEMO_REPORT_ENV]: vx }, files: [] };
}

/** Dispatch's check: the demo harness only inside `vx demo`, and only on tmux. */
export function checkDemoHarness(env: Env, harness: string, backend: string): void {
  if (harness !== DEMO_HARNESS) return;
  if (backend !== "tmux") throw new VxError("the demo harness runs only on the tmux backend - use --backend tmux (or just run: vx demo)");
  if (env[DEMO_ENV] !== "1") throw new VxError("the demo harness is for 'vx demo' only - run: vx demo");
}
