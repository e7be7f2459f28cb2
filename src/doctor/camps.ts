// What failed or killed launches leave behind (stray leases, `pending` tasks, unlisted slots). Read-only: dispatch and the
// sentinel reconcile these; doctor says what is there and who will. Unreadable files are the records check's business.
import { readdirSync } from "node:fs";
import { strayHarnesses } from "../backends/doctor";
import { campPath, readPool } from "../camps/pool";
import { worktreeKind } from "../camps/git";
import type { Exec } from "../exec";
import type { ProjectPaths } from "../state/paths";
import type { Pool, Task } from "../state/schemas";
import { isLeaseAbandoned, isTaskBusy, listTasks } from "../state/tasks";
import type { Check } from "../check";

function list(xs: string[]): string {
  return xs.length <= 3 ? xs.join(", ") : `${xs.slice(0, 3).join(", ")} and ${xs.length - 3} more`;
}

function readOr<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

async function strayDirs(paths: ProjectPaths, pool: Pool, exec: Exec): Promise<{ adoptable: number[]; foreign: number[] }> {
  const known = new Set(pool.slots.map((s) => s.number));
  const out = { adoptable: [] as number[], foreign: [] as number[] };
  const names = readOr(() => readdirSync(paths.campsDir)) ?? [];
  for (const name of names) {
    if (!/^[1-9][0-9]*$/.test(name) || known.has(Number(name))) continue;
    const path = campPath(paths, paths.project, Number(name));
    const ours = (await worktreeKind(path, paths.project, exec)) === "linked";
    (ours ? out.adoptable : out.foreign).push(Number(name));
  }
  return out;
}

/** The camps of one project: an `[ok]` summary, or one `[warn]` per kind of leftover. */
export async function campChecks(paths: ProjectPaths, exec: Exec, env: Record<string, string | undefined> = {}): Promise<Check[]> {
  const pool = readOr(() => readPool(paths));
  const tasks: Task[] | undefined = readOr(() => listTasks(paths).map((l) => l.value));
  if (!pool || !tasks) return [];
  const checks: Check[] = [];

  const leaked = pool.slots.filter((s) => s.leased_by && isLeaseAbandoned(paths, s.leased_by));
  if (leaked.length) {
    const which = list(leaked.map((s) => `slot ${s.number} (task ${s.leased_by})`));
    checks.push({ status: "warn", name: "camp leases", detail: `${which} leased to a task that was never saved; the next vx dispatch takes the slot back` });
  }
  const abandoned = tasks.filter((t) => t.status === "pending" && !isTaskBusy(paths, t.id)).map((t) => t.id);
  if (abandoned.length) {
    checks.push({
      status: "warn",
      name: "abandoned launches",
      detail: `${list(abandoned)} pending with no vx command launching it; a running sentinel marks it failed, then vx strike returns its camp`,
    });
  }
  for (const detail of await strayHarnesses(pool, tasks, { exec, env })) checks.push({ status: "warn", name: "unleased camps", detail });
  const strays = await strayDirs(paths, pool, exec);
  if (strays.adoptable.length) {
    checks.push({ status: "warn", name: "camp directories", detail: `slot ${list(strays.adoptable.map(String))} not in pool.json; the next vx dispatch adopts it` });
  }
  if (strays.foreign.length) {
    const dirs = list(strays.foreign.map((n) => `${paths.campsDir}/${n}`));
    checks.push({ status: "warn", name: "camp directories", detail: `${dirs} not in pool.json and not a worktree of this project; vx leaves it alone - remove it if nothing in it matters` });
  }
  if (checks.length) return checks;
  const leased = pool.slots.filter((s) => s.leased_by).length;
  return [{ status: "ok", name: "camps", detail: `${pool.slots.length} slot(s), ${leased} leased` }];
}
