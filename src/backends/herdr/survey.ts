/** herdr's survey (SEN-05, SEN-06): one `agent list` a pass, handed on for hook-less commanders (CMDR-08/09). */
import type { AgentInfo } from "../agents";
import type { Sighting, SoldierBackend, Survey } from "../types";
import { type HerdrOps, findAgent, indexAgents, readTranscript, readVisible } from "./ops";

type HerdrSurvey = Survey & { agents: AgentInfo[] };

export function herdrSighting(ops: HerdrOps, agent: AgentInfo): Sighting {
  const target = agent.name ?? agent.pane_id;
  return { status: agent.agent_status, read: () => readTranscript(ops, target), readVisible: () => readVisible(ops, target) };
}

function herdrSurvey(ops: HerdrOps, agents: AgentInfo[]): HerdrSurvey {
  const index = indexAgents(agents);
  return {
    agents,
    find(task) {
      const agent = findAgent(index, task);
      return agent ? herdrSighting(ops, agent) : undefined;
    },
  };
}

export function herdrBackend(ops: HerdrOps): SoldierBackend & { survey(): Promise<HerdrSurvey> } {
  return { name: "herdr", survey: async () => herdrSurvey(ops, await ops.herdr.agentList()) };
}
