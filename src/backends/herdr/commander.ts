/**
 * CMDR-08/09 in a herdr pane: a wake goes by `agent prompt` only when the visible screen, by the harness's own rules, agrees
 * with herdr's `idle`, which misses a person's draft and takes trust dialogs for idle.
 */
import { type AgentInfo, isIdleStatus } from "../agents";
import { errorMessage } from "../../errors";
import type { HarnessName } from "../../harnesses";
import type { Delivery } from "../../harnesses/types";
import { type ScreenState, notTypedBecause, resubmitWake, screenState } from "../commander-screen";
import { type HerdrOps, promptAgent, readVisible } from "./ops";
import type { PaneKeys } from "../unsent";

/** Idle only when herdr and the screen both say so; an unreadable screen is undefined: never typed into. */
export async function readHerdrCommander(ops: HerdrOps, harness: HarnessName, agent: AgentInfo): Promise<(ScreenState & { screen: string }) | undefined> {
  const screen = await readVisible(ops, agent.pane_id).catch(() => undefined);
  if (screen === undefined) return undefined;
  const state = screenState(harness, screen);
  return { ...state, idle: state.idle && isIdleStatus(agent.agent_status), screen };
}

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

/** Once herdr took the prompt it counts as delivered, never typed twice; any error leaves the wake to the caller. */
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
