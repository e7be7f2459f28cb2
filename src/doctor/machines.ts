/** Doctor's machine lines (MCH-05): each machine this state root knows, read from disk only (a check over ssh is `vx machine doctor`). */
import type { Check } from "../check";
import { errorMessage } from "../errors";
import { loadMachines } from "../machines/registry";
import { printable } from "../printable";

export function machineLines(root: string): Check[] {
  try {
    const { machines } = loadMachines(root);
    return Object.keys(machines)
      .sort()
      .map((name) => {
        const m = machines[name] as (typeof machines)[string];
        return { status: "ok", name: `machine ${name}`, detail: `${printable(m.destination)}, vx ${printable(m.vx_version)}; check it with vx machine doctor ${name}` };
      });
  } catch (err) {
    return [{ status: "warn", name: "machines", detail: errorMessage(err) }];
  }
}
