/**
 * herdr's survey for the sentinel's pass (SEN-05, SEN-06): one `agent list` per pass, each task's
 * soldier found in it by name or pane; the list is handed on for hook-less commanders (CMDR-08/09).
 */
import type { AgentInfo } from "../agents";
import type { Sighting, SoldierBackend, Survey } from "../types";
import { type HerdrOps, findAgent, readTranscript, readVisible } from "./ops";

/** The herdr survey also hands its agent list on (hook-less commanders use it, CMDR-08/09). */
type HerdrSurvey = Survey & { agents: AgentInfo[] };

export function herdrSighting(ops: HerdrOps, agent: AgentInfo): Sighting {
  const target = agent.name ?? agent.pane_id;
  return { status: agent.agent_status, read: () => readTranscript(ops, target), readVisible: () => readVisible(ops, target) };
}

function herdrSurvey(ops: HerdrOps, agents: AgentInfo[]): HerdrSurvey {
  return {
    agents,
    find(task) {
      const agent = findAgent(agents, task);
      return agent ? herdrSighting(ops, agent) : undefined;
    },
  };
}

export function herdrBackend(ops: HerdrOps): SoldierBackend & { survey(): Promise<HerdrSurvey> } {
  return { name: "herdr", survey: async () => herdrSurvey(ops, await ops.herdr.agentList()) };
}
