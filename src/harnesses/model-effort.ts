/**
 * The model and effort a soldier is launched with, checked for the harness that takes them
 * (CMD-DISPATCH-01, HRD-04): dispatch refuses them before anything is written, and doctor checks
 * every profile of models.json the same way.
 */
import { UsageError } from "../errors";
import { harnessOf } from "./index";
import type { HarnessName } from "./names";

/** Model and effort rules of CMD-DISPATCH-01 and HRD-04 for the effective harness. */
export function checkModelEffort(harness: HarnessName, model: string | undefined, effort: string | undefined): void {
  harnessOf(harness).checkModelEffort(model, effort);
  // Other harnesses take any name, but herdr types the launch line into the pane's shell, and
  // how it quotes arguments is not documented: only plain identifier characters get through.
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
