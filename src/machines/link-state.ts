/** MCH-09: the last known state of a machine's relay link (`relay/<machine>.json`), written by the sentinel, read by status. */
import { join } from "node:path";
import * as v from "valibot";
import { readdirSync } from "node:fs";
import { ensureStateDir, readStateText, writeStateFile } from "../state/files";
import { ageOf } from "../time";
import { isMachineName } from "../state/ids";

const LinkStateSchema = v.object({ state: v.picklist(["up", "down"]), since: v.string(), error: v.optional(v.string()) });
export type LinkState = v.InferOutput<typeof LinkStateSchema>;

export function linkStateFile(root: string, machine: string): string {
  if (!isMachineName(machine)) throw new Error(`invalid machine name ${JSON.stringify(machine)}`);
  return join(root, "relay", `${machine}.json`);
}

/** The last known state of a machine's link; undefined before the first try. */
export function readLinkState(root: string, machine: string): LinkState | undefined {
  try {
    const parsed = v.safeParse(LinkStateSchema, JSON.parse(readStateText(linkStateFile(root, machine)) ?? "null"));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

function dispatchFile(root: string, machine: string): string {
  if (!isMachineName(machine)) throw new Error(`invalid machine name ${JSON.stringify(machine)}`);
  return join(root, "relay", `${machine}.dispatched`);
}

/** Written before a `vx dispatch --on` asks the machine: its relay runs a while even if that command dies before its mirror is written (MCH-08). */
export function noteDispatch(root: string, machine: string, now: number): void {
  ensureStateDir(root, join(root, "relay"));
  writeStateFile(root, dispatchFile(root, machine), `${new Date(now).toISOString()}\n`);
}

/** The machines a dispatch went to within `linger` of `now` (a time in the future counts as long ago). */
export function recentDispatches(root: string, now: number, linger: number): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, "relay")).filter((n) => n.endsWith(".dispatched"));
  } catch {
    return [];
  }
  return names
    .map((n) => n.slice(0, -".dispatched".length))
    .filter((m) => {
      if (!isMachineName(m)) return false;
      const at = Date.parse(readStateText(dispatchFile(root, m))?.trim() ?? "");
      return Number.isFinite(at) && ageOf(now, at) < linger;
    });
}
