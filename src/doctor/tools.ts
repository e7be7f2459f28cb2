/** Doctor's tool checks (DOC-04) and the VX_TIME_SCALE check (DOC-05). */
import type { Deps } from "../deps";
import { which } from "../exec";
import { DEFAULT_HARNESS, HARNESSES, LISTED_HARNESS_NAMES } from "../harnesses";
import { backendToolChecks } from "../backends/doctor";
import { DEFAULT_BACKEND } from "../backends/names";
import type { ProjectConfig } from "../state/schemas";
import { parseTimeScale } from "../time";
import type { Check } from "../check";

/**
 * git, herdr (+ version and server), tmux and the four harnesses, in DOC-04 order. `anyOne` (DOC-01a, a machine's lines):
 * no backend or harness is the default one; any backend and any harness will do.
 */
export async function toolChecks(deps: Deps, config: ProjectConfig | undefined, anyOne = false): Promise<Check[]> {
  const path = deps.env.PATH;
  const backend = anyOne ? undefined : (config?.backend ?? DEFAULT_BACKEND);
  const out: Check[] = [];
  const git = which("git", path);
  out.push(git ? { status: "ok", name: "git", detail: git } : { status: "missing", name: "git", detail: "git not found in PATH", required: true });
  out.push(...(await backendToolChecks(deps, backend)));
  for (const h of LISTED_HARNESS_NAMES.map((n) => HARNESSES[n])) {
    const found = which(h.exe, path);
    const role = anyOne ? undefined : harnessRole(h.name, config);
    if (found) out.push({ status: "ok", name: h.label, detail: found });
    else if (role) out.push({ status: "missing", name: h.label, detail: `${h.exe} not found in PATH (required, ${role})`, required: true });
    else {
      out.push({ status: "optional", name: h.label, detail: `${h.exe} not found in PATH (only needed to run ${h.label} soldiers or commanders)` });
    }
  }
  if (anyOne && !LISTED_HARNESS_NAMES.some((n) => which(HARNESSES[n].exe, path))) {
    out.push({ status: "missing", name: "harness", detail: "no harness found in PATH (a soldier needs one)", required: true });
  }
  return out;
}

/** Why a harness is required (the default soldier harness or the commander; claude outside a project); undefined when optional. */
function harnessRole(harness: string, config: ProjectConfig | undefined): string | undefined {
  const soldier = (config?.harness ?? DEFAULT_HARNESS) === harness;
  const commander = (config?.commander ?? DEFAULT_HARNESS) === harness;
  const whose = config ? "this project's" : "the default";
  if (soldier && commander) return `${whose} soldier and commander harness`;
  if (soldier) return `${whose} soldier harness`;
  return commander ? `${whose} commander harness` : undefined;
}

export function timeScaleCheck(deps: Deps): Check[] {
  const raw = deps.env.VX_TIME_SCALE;
  if (raw === undefined || raw === "") return [];
  const ts = parseTimeScale(raw);
  if (!ts.valid) return [{ status: "warn", name: "VX_TIME_SCALE", detail: `"${raw}" is not a positive number, using 1` }];
  return [{ status: "warn", name: "VX_TIME_SCALE", detail: `${raw} (every built-in duration is scaled; for tests and demos)` }];
}
