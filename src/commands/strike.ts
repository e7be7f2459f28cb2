/** `vx strike <task-id> [--force] [--discard]` (CMD-STRIKE-01..03). */
import { defineVxCommand } from "../command";
import type { ParsedArgs } from "citty";
import { EXIT } from "../errors";
import { openProject } from "../project";
import { strikeTask } from "../soldiers/strike";
import { resolveTaskRef } from "../state/tasks";
import { TASK_ID_ARG, positionals, taskIdOnly } from "./parse";

export type StrikeOptions = { id: string; force: boolean; discard: boolean; landed: boolean };

export function parseStrike(args: ParsedArgs): StrikeOptions {
  return { id: taskIdOnly(positionals(args), "strike"), force: args.force === true, discard: args.discard === true, landed: args.landed === true };
}

export const strikeCommand = defineVxCommand({
  name: "strike",
  summary: "Strike a soldier's camp (dismantle it and return it to the pool) once its work has landed",
  usage: ["strike <task-id> [--force] [--discard] [--landed]"],
  args: {
    ...TASK_ID_ARG,
    force: { type: "boolean", description: "Strike a scout even when its report is missing" },
    discard: {
      type: "boolean",
      description: "Strike even when unlanded or dirty, throwing the camp's work away (only with the general's approval)",
    },
    landed: { type: "boolean", description: "Its work was landed elsewhere (the commander's machine): record it done first" },
  },
  async run(args, deps) {
    const { id: ref, force, discard, landed } = parseStrike(args);
    const project = await openProject(deps);
    const id = resolveTaskRef(project.paths, ref, "strike");
    await strikeTask(deps, project.paths, id, { force, discard, landed });
    return EXIT.ok;
  },
});
