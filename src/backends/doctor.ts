import type { Check } from "../check";
import type { Deps } from "../deps";
import { which } from "../exec";
import type { Pool, Task } from "../state/schemas";
import { ALL_BACKENDS } from "./index";
import { type BackendName, backendOf } from "./names";

/** Every backend's lines, in DOC-04 order; `backend` is the project's (it alone is required), or none: then any one will do. */
export async function backendToolChecks(deps: Deps, backend: BackendName | undefined): Promise<Check[]> {
  const out: Check[] = [];
  for (const b of ALL_BACKENDS) {
    const found = which(b.program, deps.env.PATH);
    if (found) {
      out.push({ status: "ok", name: b.name, detail: found });
      out.push(...(await b.doctor(deps, found, backend === b.name)));
    } else if (backend === b.name) {
      const other = ALL_BACKENDS.find((o) => o !== b && which(o.program, deps.env.PATH));
      const fix = `install ${b.program}${other ? `, or use ${other.name}: vx init --backend ${other.name}` : ""}`;
      out.push({ status: "missing", name: b.name, detail: `${b.program} not found in PATH (required, the soldiers' terminal) - ${fix}`, required: true });
    } else out.push({ status: "optional", name: b.name, detail: `${b.program} not found in PATH (only needed for the ${b.name} backend)` });
  }
  if (backend === undefined && !out.some((c) => c.status === "ok")) {
    const programs = ALL_BACKENDS.map((b) => b.program).join(" or ");
    out.push({ status: "missing", name: "terminal", detail: `neither ${programs} found in PATH (a soldier needs one)`, required: true });
  }
  return out;
}

/** Soldiers still alive though their task no longer holds its camp, per backend, each with its fix. */
export async function strayHarnesses(pool: Pool, tasks: Task[], deps: Pick<Deps, "exec" | "env">): Promise<string[]> {
  const out: string[] = [];
  for (const b of ALL_BACKENDS)
    out.push(
      ...(await b.strays(
        pool,
        tasks.filter((t) => backendOf(t) === b.name),
        deps,
      )),
    );
  return out;
}
