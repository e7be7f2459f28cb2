/** MCH-09: the last known state of a machine's relay link (`relay/<machine>.json`), written by the sentinel, read by status. */
import { join } from "node:path";
import * as v from "valibot";
import { readStateText } from "../state/files";
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
