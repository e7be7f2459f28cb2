/**
 * CMDR-08/09 in a herdr pane: a hook-less commander's wake is typed with `herdr agent prompt`. herdr
 * reports an agent `idle` by its own reading of the program's screen, which says nothing of a
 * person's unsent draft (herdr 0.8.2 appends the prompt to it and sends both) and which takes Codex's
 * and Gemini CLI's folder-trust dialogs for idle. So the screen is also read as herdr renders it
 * (`agent read --source visible`) and judged by the harness's own rules (`commander-screen.ts`), as
 * in a plain tmux pane; and a harness that can lose the prompt's Enter (Gemini CLI, its `unsent`)
 * gets Enter again while the wake still sits alone in its box (docs/real-clients.md).
 */
import { type AgentInfo, isIdleStatus } from "../agents";
import { errorMessage } from "../../errors";
import type { HarnessName } from "../../harnesses";
import type { Delivery } from "../../harnesses/types";
import { type ScreenState, notTypedBecause, resubmitWake, screenState } from "../commander-screen";
import { type HerdrOps, promptAgent, readVisible } from "./ops";
import type { PaneKeys } from "../unsent";

/**
 * The commander in `pane` as herdr lists it (`agent`) and as its screen shows it: idle only when
 * both say so. An unreadable screen is undefined: never typed into.
 */
export async function readHerdrCommander(ops: HerdrOps, harness: HarnessName, agent: AgentInfo): Promise<(ScreenState & { screen: string }) | undefined> {
  const screen = await readVisible(ops, agent.pane_id).catch(() => undefined);
  if (screen === undefined) return undefined;
  const state = screenState(harness, screen);
  return { ...state, idle: state.idle && isIdleStatus(agent.agent_status), screen };
}

/** herdr's two calls `enterWhileUnsent` makes: the screen as shown, and keys by herdr's names. */
function herdrKeys(ops: HerdrOps): PaneKeys {
  return {
    capture: async (pane) => {
      const screen = await readVisible(ops, pane);
      if (screen === undefined) throw new Error(`herdr agent read ${pane}: the agent is gone or busy`);
      return screen;
    },
    sendKeys: (pane, keys) =>
      ops.herdr.agentSendKeys(
        pane,
        keys.map((k) => k.toLowerCase()),
      ),
  };
}

/**
 * Types `text` into the commander's herdr pane once, only when herdr reports it idle and its screen
 * shows it idle with an empty input line (read now); otherwise an error, and the caller keeps the
 * wake for the next pass. Once herdr took the prompt, it counts as delivered: never typed twice.
 */
export async function promptHerdrCommander(ops: HerdrOps, harness: HarnessName, agent: AgentInfo, text: string): Promise<Delivery> {
  const pane = agent.pane_id;
  const state = await readHerdrCommander(ops, harness, agent);
  const why = notTypedBecause(state);
  if (why) return { ok: false, error: `herdr pane ${pane}: the commander is ${why}` };
  try {
    const out = await promptAgent(ops, pane, text);
    if (out.kind === "gone") return { ok: false, error: `herdr agent prompt ${pane}: the commander is gone (${out.code})` };
    if (out.kind === "blocked") return { ok: false, error: `herdr agent prompt ${pane}: the commander is at a dialog (agent_blocked)` };
    if (out.kind === "timeout") return { ok: false, error: `herdr agent prompt ${pane}: timeout` };
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
  await resubmitWake({ term: herdrKeys(ops), pane, clock: ops.clock, env: ops.env }, harness, state!.screen, text).catch(() => undefined);
  return { ok: true };
}
