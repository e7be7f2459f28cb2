/** Doctor's machine lines (DOC-01a): each machine this state root knows and its relay link, read from disk only (a check over ssh is `vx machine doctor`). */
import type { Check } from "../check";
import { errorMessage } from "../errors";
import { readLinkState } from "../machines/link-state";
import { loadMachines } from "../machines/registry";
import { printable } from "../printable";

export function machineLines(root: string): Check[] {
  try {
    const { machines } = loadMachines(root);
    return Object.keys(machines)
      .sort()
      .map((name) => {
        const m = machines[name] as (typeof machines)[string];
        const link = readLinkState(root, name);
        const where = `${printable(m.destination)}, vx ${printable(m.vx_version)}`;
        if (link?.state === "down") {
          return {
            status: "warn",
            name: `machine ${name}`,
            detail: `${where}; unreachable since ${link.since}${link.error ? ` (${printable(link.error)})` : ""}; check it with vx machine doctor ${name}`,
          };
        }
        const relay = link ? `; relay up since ${link.since}` : "";
        return { status: "ok", name: `machine ${name}`, detail: `${where}${relay}; check it with vx machine doctor ${name}` };
      });
  } catch (err) {
    return [{ status: "warn", name: "machines", detail: errorMessage(err) }];
  }
}
