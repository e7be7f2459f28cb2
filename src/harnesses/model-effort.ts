import { UsageError } from "../errors";
import { harnessOf } from "./index";
import type { HarnessName } from "./names";

/** CMD-DISPATCH-01, HRD-04: dispatch checks before writing anything, doctor every models.json profile. */
export function checkModelEffort(harness: HarnessName, model: string | undefined, effort: string | undefined): void {
  harnessOf(harness).checkModelEffort(model, effort);
  // herdr types the launch line into a shell with undocumented quoting: only plain characters get through.
  for (const [flag, value] of [
    ["model", model],
    ["effort", effort],
  ] as const) {
    if (value !== undefined && !SAFE_VALUE.test(value)) {
      throw new UsageError(`invalid ${flag} "${value}": use only letters, digits and . _ : / @ + = -`, "dispatch");
    }
  }
}

const SAFE_VALUE = /^[A-Za-z0-9][A-Za-z0-9._:/@+=-]*$/;
