/** Which tasks hold a camp lease (STA-09); apart from camps/pool.ts so a currency check loads no git or pool writers. */
import type { ProjectPaths } from "./paths";
import { loadRecord } from "./record";
import { PoolSchema } from "./schemas";

/** Undefined when there is no pool file; a corrupt one throws. */
export function leasedIds(paths: ProjectPaths): Set<string> | undefined {
  const pool = loadRecord(paths.poolFile, PoolSchema, true);
  if (!pool) return undefined;
  const out = new Set<string>();
  for (const slot of pool.value.slots) if (slot.leased_by) out.add(slot.leased_by);
  return out;
}
