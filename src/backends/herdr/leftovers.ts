/**
 * What a herdr launch that died part-way leaves behind: a tab it created but never recorded. The
 * launch notes the tab's workspace and label on the task before it creates it, so it is found
 * again by both, with a pane in the task's camp.
 */
import { realpathOr } from "../../state/paths";
import type { Task } from "../../state/schemas";
import { type HerdrOps, closeTab } from "./ops";

/** Tabs the task's launch created but never recorded; none when it recorded one or noted none. */
async function unrecordedTabs(ops: HerdrOps, task: Task): Promise<string[]> {
  const { herdr_workspace_id: workspace, herdr_agent_name: label, camp_path: camp } = task;
  if (task.herdr_tab_id || task.herdr_pane_id || !workspace || !label || !camp) return [];
  const labelled = (await ops.herdr.tabList(workspace)).filter((t) => t.label === label).map((t) => t.tabId);
  if (labelled.length === 0) return [];
  const here = new Set([camp, realpathOr(camp)]);
  const panes = await ops.herdr.paneList(workspace);
  return labelled.filter((tab) => panes.some((p) => p.tabId === tab && p.cwd !== undefined && (here.has(p.cwd) || here.has(realpathOr(p.cwd)))));
}

/** Closes the tabs `unrecordedTabs` finds; returns the ones closed. Throws when herdr cannot be asked. */
export async function closeUnrecordedTabs(ops: HerdrOps, task: Task): Promise<string[]> {
  const closed: string[] = [];
  for (const tab of await unrecordedTabs(ops, task)) {
    if (await closeTab(ops, tab)) closed.push(tab);
  }
  return closed;
}
