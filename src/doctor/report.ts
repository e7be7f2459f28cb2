/** Doctor's line format and summary (DOC-02, DOC-03). There is no `[fail]`. */

import type { Check } from "../check";
import { EXIT } from "../exit-codes";

function checkLine(c: Check): string {
  return `[${c.status}] ${c.name}${c.detail ? ` - ${c.detail}` : ""}`;
}

/** The summary line and exit code for a finished list of checks. */
export function summarize(checks: Check[]): { line: string; exit: number } {
  if (checks.some((c) => c.status === "missing" && c.required)) {
    return { line: "Environment not ready, see missing checks above.", exit: EXIT.error };
  }
  const optional = checks.filter((c) => c.status === "missing" || c.status === "optional").map((c) => c.name);
  const warnings = checks.filter((c) => c.status === "warn").map((c) => c.name);
  const parts: string[] = [];
  if (optional.length) parts.push(`optional: ${optional.join(", ")} missing`);
  if (warnings.length) parts.push(`warnings: ${warnings.join(", ")}`);
  return { line: parts.length ? `Environment ready (${parts.join("; ")}).` : "Environment ready.", exit: EXIT.ok };
}

export function renderReport(checks: Check[]): { text: string; exit: number } {
  const { line, exit } = summarize(checks);
  return { text: `${checks.map(checkLine).join("\n")}\n\n${line}\n`, exit };
}
