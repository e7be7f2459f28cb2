/**
 * The one reader of which tasks hold a camp lease: the ids named by `leased_by` in
 * `camps/pool.json` (STA-09). Kept apart from camps/pool.ts so a wake's currency check reads it
 * without loading git and the pool's writers.
 */
import type { ProjectPaths } from "./paths";
import { loadRecord } from "./record";
import { PoolSchema } from "./schemas";

/** Ids of every task holding a lease; undefined when there is no pool file. A corrupt one throws. */
export function leasedIds(paths: ProjectPaths): Set<string> | undefined {
  const pool = loadRecord(paths.poolFile, PoolSchema, true);
  if (!pool) return undefined;
  const out = new Set<string>();
  for (const slot of pool.value.slots) if (slot.leased_by) out.add(slot.leased_by);
  return out;
}
