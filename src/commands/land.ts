/** `vx land <task-id>` (CMD-LAND-01/02): fast-forward the base to a mission's branch, then strike; the landing is `soldiers/land.ts`. */
import { defineVxCommand } from "../command";
import { openProject } from "../project";
import { landTask } from "../soldiers/land";
import { resolveTaskRef, withTaskOp } from "../state/tasks";
import { TASK_ID_ARG, positionals, taskIdOnly } from "./parse";

export const landCommand = defineVxCommand({
  name: "land",
  summary: "Land a finished mission's work into this project's base branch",
  usage: ["land <task-id>"],
  args: { ...TASK_ID_ARG },
  async run(args, deps) {
    const ref = taskIdOnly(positionals(args), "land");
    const { paths } = await openProject(deps);
    const id = resolveTaskRef(paths, ref, "land");
    return withTaskOp(paths, id, () => landTask(deps, paths, id));
  },
});
