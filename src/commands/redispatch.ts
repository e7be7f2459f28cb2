/**
 * `vx redispatch <task-id>`: re-run an interrupted or failed task from its original prompt under the same
 * id (CMD-REDISPATCH-01/02). The checks of the arguments are here; the re-run is `soldiers/redispatch.ts`.
 */
import { defineVxCommand } from "../command";
import type { Deps } from "../deps";
import { UsageError } from "../errors";
import { DEFAULT_HARNESS } from "../harnesses/names";
import { printable } from "../printable";
import { type Project, openProject } from "../project";
import { TASK_ID_ARG, positionals, taskIdOnly } from "./parse";
import { mirroredTask, runThere } from "../soldiers/remote-task";
import { resolveTaskRef, withTaskOp } from "../state/tasks";
import { reportLaunch } from "../soldiers/launch";
import { redispatchTask } from "../soldiers/redispatch";
import { type Choice, profileChoice } from "../state/models";
import { checkModelEffort } from "../harnesses/model-effort";

/** The profile's harness, model and effort, checked as dispatch checks its own (64 before anything changes). */
function redispatchChoice(deps: Deps, project: Project, name: unknown): Choice {
  const where = { root: project.root, top: project.paths.project };
  const choice = profileChoice(deps, where, name, {}, { useDefault: false, command: "redispatch" });
  const harness = choice.harness ?? project.config.harness ?? DEFAULT_HARNESS;
  try {
    checkModelEffort(harness, choice.model, choice.effort);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`profile "${printable(String(name))}": ${err.message}`, "redispatch");
    throw err;
  }
  return { harness, model: choice.model, effort: choice.effort };
}

/** `vx redispatch`. */
export const redispatchCommand = defineVxCommand({
  name: "redispatch",
  summary: "Re-dispatch an interrupted or failed task from its original prompt",
  usage: ["redispatch <task-id> [--profile <name>]"],
  args: {
    ...TASK_ID_ARG,
    profile: { type: "string", valueHint: "name", description: "Relaunch with a profile's harness, model and effort instead of the task's own" },
  },
  async run(args, deps) {
    const ref = taskIdOnly(positionals(args), "redispatch");
    const project = await openProject(deps);
    const id = resolveTaskRef(project.paths, ref, "redispatch");
    const away = mirroredTask(project.paths, id);
    if (away) {
      const words = ["redispatch", id, ...(args.profile === undefined ? [] : ["--profile", String(args.profile)])];
      return withTaskOp(project.paths, id, () => runThere(deps, project.paths, away, words));
    }
    // CMD-MODELS-01: --profile replaces the recorded harness, model and effort as on a dispatch.
    const choice = args.profile === undefined ? undefined : redispatchChoice(deps, project, args.profile);
    return reportLaunch(deps, await withTaskOp(project.paths, id, () => redispatchTask(deps, project, id, choice)));
  },
});
