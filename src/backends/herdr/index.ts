/** herdr: soldiers are agents in tabs of the commander's workspace (HRD-01..07); one `agent list` a pass (CMDR-08). */
import { VxError } from "../../errors";
import { gitToplevel, isUnder } from "../../state/paths";
import type { Task } from "../../state/schemas";
import type { Backend } from "../backend";
import { agentName } from "../soldier-name";
import { promptHerdrCommander, readHerdrCommander } from "./commander";
import { herdrChecks } from "./doctor";
import { closeUnrecordedTabs } from "./leftovers";
import { herdrOps } from "./ops";
import { herdrBackend } from "./survey";
import { herdrTerminal } from "./terminal";

/** SEN-18: the note of a soldier whose agent disappeared. */
export const NOTE_AGENT_GONE = "[vexillum] this soldier's herdr agent disappeared (pane closed, or herdr restarted) - marked interrupted. Any work it already committed is still in its camp.";

/** CMD-DISPATCH-02, shared by redispatch and resume. */
const NO_WORKSPACE = "HERDR_WORKSPACE_ID is not set - run vx from inside a herdr pane, or use --backend tmux (vx init --backend tmux makes it this project's default)";

/** Saved before the tab exists: where it will be and its label, so a dead launch's tab is found (`leftovers.ts`). */
function intent(task: Pick<Task, "prompt" | "id">, workspace: string | undefined): Partial<Task> {
  return workspace ? { herdr_workspace_id: workspace, herdr_agent_name: agentName(task.prompt, task.id) } : {};
}

export const herdr = {
  name: "herdr",
  program: "herdr",
  pane: "herdr pane",
  closed: "herdr pane",
  leftover: "tab",
  goneNote: NOTE_AGENT_GONE,
  present: (env, onPath) => Boolean(env.HERDR_WORKSPACE_ID) || onPath("herdr"),
  check(env) {
    const workspace = env.HERDR_WORKSPACE_ID;
    if (!workspace) throw new VxError(NO_WORKSPACE);
    return workspace;
  },
  commanderHere: (env) => Boolean(env.HERDR_WORKSPACE_ID),

  recorded: (task) => Boolean(task.herdr_agent_name || task.herdr_pane_id),
  hasPane: (task) => Boolean(task.herdr_tab_id),
  soldierName: (task) => task.herdr_agent_name,
  paneName: (task) => task.herdr_agent_name ?? task.herdr_pane_id,
  launchLine: (t) => (t.herdr_pane_id ? `herdr: workspace=${t.herdr_workspace_id ?? ""} tab=${t.herdr_tab_id ?? ""} pane=${t.herdr_pane_id} agent=${t.herdr_agent_name ?? ""}` : undefined),
  intent,
  relaunch: (task, workspace) => ({
    herdr_tab_id: undefined,
    herdr_pane_id: undefined,
    ...(workspace ? intent(task, workspace) : { herdr_workspace_id: undefined, herdr_agent_name: undefined }),
  }),

  terminal: herdrTerminal,
  survey: { listsCommanders: true, backend: (deps) => herdrBackend(herdrOps(deps)) },
  doctor: (deps, exe) => herdrChecks(deps, exe),
  strays: async () => [],
  closeLeft: (deps, task) => closeUnrecordedTabs(herdrOps(deps), task),
  // CMDR-02: the project of a live await registered from this pane, else the git toplevel of the
  // cwd herdr reports for the pane's agent (never a camp: its queue has no reader), else none.
  async callingCommander(deps, ctx) {
    const pane = deps.env.HERDR_PANE_ID;
    if (!pane) return undefined;
    const agent = await herdrOps(deps)
      .herdr.agentGet(pane)
      .catch(() => undefined);
    let project = (await ctx.awaiters()).find((a) => a.herdr_pane_id === pane)?.project_path;
    if (!project && agent?.cwd) {
      // The commander's own environment is not ours: no GIT_DIR of this process may redirect it.
      const top = await gitToplevel(agent.cwd, deps.exec, {});
      if (top && !isUnder(top, ctx.root)) project = top;
    }
    const entry = { herdr_pane_id: pane, herdr_workspace_id: agent?.workspace_id || deps.env.HERDR_WORKSPACE_ID };
    return { pane, project, harness: agent?.agent || undefined, entry, marksTasks: true };
  },
  commanderPane: (entry) => entry.herdr_pane_id,
  // CMDR-03: live means an agent of the registered kind in the registered pane, in the pass's list.
  async findCommander(ctx, harness, entry) {
    const agent = entry.herdr_pane_id ? ctx.agents?.find((a) => a.pane_id === entry.herdr_pane_id && a.agent === harness) : undefined;
    if (!agent) return undefined;
    const ops = herdrOps(ctx);
    return {
      pane: agent.pane_id,
      via: " via herdr agent prompt",
      idle: async () => (await readHerdrCommander(ops, harness, agent))?.idle === true,
      type: (text) => promptHerdrCommander(ops, harness, agent, text),
    };
  },
} satisfies Backend;
