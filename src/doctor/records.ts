// Task files and `camps/pool.json` parsed as the commands parse them, so a corrupt one is named here, not later by a failing command.
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
