/**
 * Doctor's look at the project's records: every task file and `camps/pool.json` parsed the way the
 * commands parse them, so a corrupt one (bad JSON, a schema failure, an id that is not its file
 * name) is named here instead of surfacing later as a failing `vx status` or dispatch. Read-only,
 * and silent when everything parses.
 */
import { join } from "node:path";
import { readPool } from "../camps/pool";
import { errorMessage } from "../errors";
import { readStateText } from "../state/files";
import type { ProjectPaths } from "../state/paths";
import { parseTaskFile, taskFileNames } from "../state/tasks";
import type { Check } from "../check";

const TASK_EFFECT = "until this file is fixed, vx status fails and the sentinel does not watch this task";
const POOL_EFFECT = "until this file is fixed, vx dispatch, redispatch, land and strike cannot lease or release a camp";

/** One warning per corrupt task file, then one for a corrupt pool; none when all of them parse. */
export function recordChecks(paths: ProjectPaths): Check[] {
  const out: Check[] = [];
  let names: string[] = [];
  try {
    names = taskFileNames(paths);
  } catch (err) {
    out.push({ status: "warn", name: "task files", detail: `cannot list ${paths.tasksDir}: ${errorMessage(err)}; make it a readable directory` });
  }
  for (const name of names) {
    const path = join(paths.tasksDir, name);
    try {
      const text = readStateText(path);
      if (text !== undefined) parseTaskFile(path, text);
    } catch (err) {
      out.push({ status: "warn", name: `task file ${name}`, detail: `${errorMessage(err)}; ${TASK_EFFECT}` });
    }
  }
  try {
    readPool(paths);
  } catch (err) {
    out.push({ status: "warn", name: "camp pool", detail: `${errorMessage(err)}; ${POOL_EFFECT}` });
  }
  return out;
}
