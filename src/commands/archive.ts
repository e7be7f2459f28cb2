/** `vx archive <task-id>... | --finished` (CMD-ARCHIVE-01): finished tasks off the list, their files kept. */
import type { ParsedArgs } from "citty";
import { defineVxCommand } from "../command";
import { EXIT, UsageError } from "../errors";
import { openProject } from "../project";
import { archiveDir, archiveTask, finishedTasks } from "../soldiers/archive";
import { assertTaskRef } from "../state/ids";
import { resolveTaskRef } from "../state/tasks";
import { TASK_ID_ARG, positionals } from "./parse";

type ArchiveOptions = { refs: string[]; finished: boolean };

function parseArchive(args: ParsedArgs): ArchiveOptions {
  const words = positionals(args);
  const finished = args.finished === true;
  if (finished && words.length > 0) throw new UsageError(`unexpected argument "${words[0]}" (--finished takes no task id)`, "archive");
  if (!finished && words.length === 0) throw new UsageError("missing task id (or --finished for every finished task)", "archive");
  return { refs: words.map((w) => assertTaskRef(w, "archive")), finished };
}

export const archiveCommand = defineVxCommand({
  name: "archive",
  summary: "Take finished tasks off the list, keeping their files",
  usage: ["archive <task-id>...|--finished"],
  args: {
    ...TASK_ID_ARG,
    finished: { type: "boolean", description: "Every done, failed or shipped task that no longer holds a camp" },
  },
  async run(args, deps) {
    const opts = parseArchive(args);
    const { paths } = await openProject(deps);
    let ids = opts.refs.map((r) => resolveTaskRef(paths, r, "archive"));
    if (opts.finished) {
      const { movable, holding } = finishedTasks(paths);
      if (holding.length) deps.stderr.write(`vx: kept ${holding.join(", ")}: finished but still holding a camp - strike them first\n`);
      if (movable.length === 0) deps.stderr.write("vx: nothing to archive\n");
      ids = movable;
    }
    for (const id of ids) {
      await archiveTask(paths, id);
      deps.stdout.write(`archived ${id}\n`);
    }
    if (ids.length) deps.stderr.write(`vx: ${ids.length === 1 ? "its file is" : "their files are"} kept in ${archiveDir(paths)}\n`);
    return EXIT.ok;
  },
});
