/** `vx land <task-id>... | --all` (CMD-LAND-01..06): fast-forward the base to missions' branches, then strike; the landing is `soldiers/land.ts`. */
import { defineVxCommand } from "../command";
import { UsageError } from "../errors";
import { openProject } from "../project";
import { landTask } from "../soldiers/land";
import { landMany } from "../soldiers/land-many";
import { assertTaskRef } from "../state/ids";
import { resolveTaskRef, withTaskOp } from "../state/tasks";
import { TASK_ID_ARG, positionals } from "./parse";

export const landCommand = defineVxCommand({
  name: "land",
  summary: "Land a finished mission's work into this project's base branch",
  usage: ["land <task-id>...", "land --all"],
  args: {
    ...TASK_ID_ARG,
    all: { type: "boolean", description: "Land every idle mission with commits, in the order that conflicts least" },
  },
  async run(args, deps) {
    const words = positionals(args);
    if (args.all === true && words.length > 0) throw new UsageError(`--all takes no task id (got "${words[0]}")`, "land");
    if (args.all !== true && words.length === 0) throw new UsageError("missing task id", "land");
    const refs = words.map((w) => assertTaskRef(w, "land"));
    const { paths } = await openProject(deps);
    const ids = [...new Set(refs.map((ref) => resolveTaskRef(paths, ref, "land")))];
    if (args.all !== true && ids.length === 1) {
      const id = ids[0] as string;
      return withTaskOp(paths, id, () => landTask(deps, paths, id));
    }
    return landMany(deps, paths, args.all === true ? undefined : ids);
  },
});
