/**
 * `vx land --all` / `vx land <id> <id>...` (CMD-LAND-06): the missions in the order that keeps conflicts fewest, each landed by
 * `landTask` under its own operation lock, stopping at the first that needs its soldier. One hint (CMD-LAND-03) at the end.
 */
import { currentBranch } from "../camps/git";
import { type MissionLanding, landingReport, missionsInFlight } from "../camps/overlap";
import { leasedTasks } from "../camps/pool";
import type { Deps } from "../deps";
import { EXIT, VxError, errorMessage } from "../errors";
import type { ProjectPaths } from "../state/paths";
import type { Task } from "../state/schemas";
import { listTasks, requireTask, sortTasks, withTaskOp } from "../state/tasks";
import { hintDiverged, landTask } from "./land";
import { workingReason } from "./land-rebase";

/** Lower lands first: what cannot collide with the others, then what overlaps least; a forecast conflict last (it needs its soldier). */
function rank(l: MissionLanding): number {
  const merge = l.merge === "clean" ? 0 : l.merge === "unknown" ? 2 : 3;
  return merge * 4 + (l.overlaps.length === 0 ? 0 : 2) + (l.fastForward ? 0 : 1);
}

/** `missions` (TSK-08 order) sorted by rank, then fewest overlaps; ties keep TSK-08 order. */
export function landingOrder(missions: readonly MissionLanding[]): MissionLanding[] {
  return missions
    .map((l, i) => ({ l, i }))
    .sort((a, b) => rank(a.l) - rank(b.l) || a.l.overlaps.length - b.l.overlaps.length || a.i - b.i)
    .map((x) => x.l);
}

type Plan = { order: string[]; skipped: string[] };

/** Which missions to try, and in what order; `ids` undefined is `--all`: every idle mission in flight on the checkout's branch. */
async function plan(deps: Deps, paths: ProjectPaths, ids: readonly string[] | undefined): Promise<Plan> {
  const tasks = sortTasks(listTasks(paths)).map((t) => t.value);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const base = await currentBranch(paths.project, deps.exec);
  const chosen: Task[] = ids ? ids.map((id) => byId.get(id) ?? requireTask(paths, id)) : tasks.filter((t) => t.kind === "mission" && t.camp_base === base);
  const skipped = ids ? [] : chosen.filter((t) => workingReason(paths, t) !== undefined).map((t) => t.id);
  const candidates = chosen.filter((t) => !skipped.includes(t.id));
  const forecast = await landingReport(paths.project, missionsInFlight(candidates, ids ? undefined : leasedTasks(paths)), deps.exec);
  const ordered = landingOrder(forecast).map((l) => l.id);
  // Named ids the forecast has nothing for (no commits yet, a scout, no camp) are still tried, after the rest: land says why.
  const rest = ids ? ids.filter((id) => !ordered.includes(id)) : [];
  return { order: [...ordered, ...rest], skipped };
}

export async function landMany(deps: Deps, paths: ProjectPaths, ids: readonly string[] | undefined): Promise<number> {
  const { order, skipped } = await plan(deps, paths, ids);
  if (skipped.length > 0) deps.stderr.write(`vx: not landing ${skipped.join(", ")}: still working\n`);
  if (order.length === 0) {
    deps.stdout.write("land: no mission to land\n");
    return EXIT.ok;
  }
  const landed: string[] = [];
  let code: number = EXIT.ok;
  let stop: string | undefined;
  for (const id of order) {
    try {
      const c = await withTaskOp(paths, id, () => landTask(deps, paths, id, { hint: false }));
      landed.push(id);
      if (c !== EXIT.ok) code = c;
    } catch (err) {
      const left = order.slice(order.indexOf(id) + 1);
      stop = `land stopped at task ${id}: ${errorMessage(err)}${left.length ? `; not tried: ${left.join(", ")}` : ""}`;
      break;
    }
  }
  deps.stdout.write(`land: ${landed.length} of ${order.length} landed${landed.length ? `: ${landed.join(", ")}` : ""}\n`);
  const base = await currentBranch(paths.project, deps.exec);
  if (landed.length > 0 && base) await hintDiverged(deps, paths, landed, base);
  if (stop) throw new VxError(stop);
  return code;
}
