/** A dead launch's unrecorded tab, found by the workspace and label noted before it was made, with a pane in the camp. */
import { realpathOr } from "../../state/paths";
import type { Task } from "../../state/schemas";
import { type HerdrOps, closeTab } from "./ops";

async function unrecordedTabs(ops: HerdrOps, task: Task): Promise<string[]> {
  const { herdr_workspace_id: workspace, herdr_agent_name: label, camp_path: camp } = task;
  if (task.herdr_tab_id || task.herdr_pane_id || !workspace || !label || !camp) return [];
  const labelled = (await ops.herdr.tabList(workspace)).filter((t) => t.label === label).map((t) => t.tabId);
  if (labelled.length === 0) return [];
  const here = new Set([camp, realpathOr(camp)]);
  const panes = await ops.herdr.paneList(workspace);
  return labelled.filter((tab) => panes.some((p) => p.tabId === tab && p.cwd !== undefined && (here.has(p.cwd) || here.has(realpathOr(p.cwd)))));
}

/** Throws when herdr cannot be asked. */
export async function closeUnrecordedTabs(ops: HerdrOps, task: Task): Promise<string[]> {
  const closed: string[] = [];
  for (const tab of await unrecordedTabs(ops, task)) {
    if (await closeTab(ops, tab)) closed.push(tab);
  }
  return closed;
}
