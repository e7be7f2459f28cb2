/** `vx strike <task-id> [--force] [--discard]` (CMD-STRIKE-01..03). */
import { defineVxCommand } from "../command";
import { EXIT, UsageError } from "../errors";
import { openProject } from "../project";
import { strikeTask } from "../soldiers/strike";
import { assertTaskId } from "../state/ids";

/** The one task id a command takes, validated before any file is touched (TSK-02). */
export function taskIdArg(positionals: unknown[], command: string): string {
  const [id, extra] = positionals.map(String);
  if (id === undefined) throw new UsageError("missing task id", command);
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`, command);
  return assertTaskId(id, command);
}

export const strikeCommand = defineVxCommand({
  name: "strike",
  summary: "Strike a soldier's camp (dismantle it and return it to the pool) once its work has landed",
  usage: ["strike <task-id> [--force] [--discard]"],
  args: {
    force: { type: "boolean", description: "Strike a scout even when its report is missing" },
    discard: {
      type: "boolean",
      description: "Strike even when unlanded or dirty, throwing the camp's work away (only with the general's approval)",
    },
  },
  async run(args, deps) {
    const id = taskIdArg(args._, "strike");
    const project = await openProject(deps);
    await strikeTask(deps, project.paths, id, { force: args.force === true, discard: args.discard === true });
    return EXIT.ok;
  },
});
