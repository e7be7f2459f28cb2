// A pass's work per herdr task does not grow with the length of herdr's agent list (SEN-05, SEN-06):
// the list's reads are counted, not timed.
import { describe, expect, test } from "bun:test";
import type { AgentInfo } from "../../src/backends/agents";
import type { HerdrClient } from "../../src/backends/herdr/client";
import { herdrBackend } from "../../src/backends/herdr/survey";
import { runPass } from "../../src/sentinel/pass";
import { taskId, world } from "../sentinel-kit";

const agent = (i: number, o: Partial<AgentInfo> = {}): AgentInfo => ({
  agent: "claude",
  agent_status: "working",
  pane_id: `w1:p${i}`,
  tab_id: "w1:t1",
  workspace_id: "w1",
  state_change_seq: 3,
  interactive_ready: true,
  ...o,
});

/** `items` behind a proxy that counts reads of its elements (`find`, `for...of` and indexing all go through it). */
function counted(items: AgentInfo[]): { list: AgentInfo[]; reads(): number } {
  let reads = 0;
  const list = new Proxy(items, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { list, reads: () => reads };
}

/**
 * The element reads of one pass over `tasks` running tasks, `agents` agents listed: strangers first, then the
 * tasks' own, half found by name and half by pane (their names lost, as after a herdr restart).
 */
async function listReads(tasks: number, agents: number): Promise<number> {
  using w = world();
  const { paths } = w.addProject();
  const items = Array.from({ length: agents - tasks }, (_, i) => agent(i, { name: `stranger-${i}` }));
  for (let t = 0; t < tasks; t++) {
    const pane = `w1:p${agents + t}`;
    const name = `vx-soldier-${t}`;
    items.push(agent(agents + t, t % 2 ? { pane_id: pane } : { pane_id: pane, name }));
    w.writeTask(paths, { id: taskId(), herdr_agent_name: name, herdr_pane_id: pane });
  }
  const { list, reads } = counted(items);
  // Only the list is asked for: any other herdr call is a TypeError.
  const client = { agentList: async () => list } as Partial<HerdrClient> as HerdrClient;
  w.ctx.backends = { herdr: herdrBackend({ herdr: client, clock: w.clock, env: w.env }) };
  await runPass(w.ctx);
  expect(w.logs).toEqual([]);
  return reads();
}

/** Reads per task: the difference between two task counts, so reading the whole list once a pass cancels out. */
async function readsPerTask(agents: number): Promise<number> {
  return ((await listReads(8, agents)) - (await listReads(4, agents))) / 4;
}

describe("a pass at scale", () => {
  test("the agent list's reads per task are the same at 10 and 1,000 agents", async () => {
    const few = await readsPerTask(10);
    const many = await readsPerTask(1_000);
    expect({ few, many }).toEqual({ few, many: few });
  });
});
