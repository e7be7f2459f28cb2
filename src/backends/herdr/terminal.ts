/** The herdr side of the lifecycle seam. */
import { closeUnrecordedTabs } from "./leftovers";
import { herdrSighting } from "./survey";
import type { AgentInfo } from "../agents";
import { type HerdrOps, closePane, closeTab, herdrOps, isGone, promptAgent, readVisible } from "./ops";
import type { PromptOutcome } from "../types";
import { herdrCode } from "./types";
import type { Deps } from "../../deps";
import { harnessOf } from "../../harnesses";
import { errorMessage } from "../../errors";
import type { ProjectPaths } from "../../state/paths";
import { COUNTS, deadlineIn, scaled } from "../../time";
import { launchSoldier, settleAfterPrompt } from "./launch";
import type { LifecycleRules, SoldierTerminal } from "../terminal-types";
import type { Task } from "../../state/schemas";

/** Right after a key herdr may still show the dialog: only a state change proves a later `blocked` is a new question. */
async function waitAfterKeys(ops: HerdrOps, target: string, before: AgentInfo): Promise<PromptOutcome> {
  const deadline = deadlineIn(ops.clock, scaled("quickSettle", ops.env));
  for (;;) {
    const remaining = deadline.left();
    if (remaining <= 0) return { kind: "timeout" };
    let agent: AgentInfo;
    try {
      agent = await ops.herdr.agentWait(target, remaining);
    } catch (err) {
      const code = herdrCode(err);
      if (isGone(err)) return { kind: "gone", code: code ?? "" };
      // The key went in; whatever herdr says now, the sentinel takes over from here.
      return { kind: "timeout" };
    }
    if (agent.agent_status !== "blocked" || agent.state_change_seq !== before.state_change_seq) return { kind: "settled", agent };
    await ops.clock.sleep(scaled("trustPoll", ops.env));
  }
}

function soldierTarget(task: Task): string {
  return task.herdr_agent_name || task.herdr_pane_id || "";
}

export function herdrTerminal(deps: Deps, paths: ProjectPaths, rules: LifecycleRules, workspace?: string): SoldierTerminal {
  const ops = herdrOps(deps);
  return {
    name: "herdr",
    pane: "herdr pane",
    launch(pending, relaunch) {
      if (!workspace) throw new Error("a herdr launch needs the caller's workspace");
      return launchSoldier({ deps, paths, ops, workspace, rules }, pending, relaunch);
    },
    prompt: (task, text) => promptAgent(ops, soldierTarget(task), text, { waitTimeoutMs: scaled("quickSettle", deps.env), unsent: harnessOf(task.harness).unsent }),
    async press(task, key) {
      const target = soldierTarget(task);
      let before: AgentInfo;
      try {
        before = await ops.herdr.agentGet(target);
        await ops.herdr.agentSendKeys(target, [key]);
      } catch (err) {
        if (isGone(err)) return { kind: "gone", code: herdrCode(err) ?? "" };
        throw err;
      }
      return waitAfterKeys(ops, target, before);
    },
    screen: (task) => readVisible(ops, soldierTarget(task)).catch(() => undefined),
    async live(task) {
      try {
        return herdrSighting(ops, await ops.herdr.agentGet(soldierTarget(task)));
      } catch (err) {
        if (isGone(err)) return undefined;
        throw err;
      }
    },
    settle: (task, outcome) => settleAfterPrompt({ deps, paths, ops, rules }, task, outcome),
    async close(task) {
      if (!task.herdr_tab_id && !task.herdr_pane_id) {
        // Never recorded a pane; a launch that died may still have left its tab.
        await closeUnrecordedTabs(ops, task).catch((err) => {
          deps.stderr.write(`vx: could not look for a herdr tab task ${task.id}'s launch may have left: ${errorMessage(err)}\n`);
        });
        return;
      }
      try {
        if (task.herdr_tab_id) await closeTab(ops, task.herdr_tab_id);
        else await closePane(ops, task.herdr_pane_id!);
      } catch (err) {
        const what = task.herdr_tab_id ? `tab ${task.herdr_tab_id}` : `pane ${task.herdr_pane_id}`;
        const why = herdrCode(err) === "herdr_missing" ? "herdr not found in PATH" : errorMessage(err);
        throw new Error(`could not close the soldier's herdr ${what}: ${why}`);
      }
    },
    async transcript(task, lines) {
      const target = task.herdr_agent_name || task.herdr_pane_id;
      if (!target) throw new Error("no herdr agent recorded");
      // Read at least a full transcript so trailing blank rows do not eat into the tail.
      return ops.herdr.agentRead(target, "recent-unwrapped", Math.max(lines, COUNTS.transcriptLines));
    },
  };
}
