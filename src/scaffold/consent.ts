// Consent for `vx init` and `vx upgrade` (SCF-01, SCF-08): the plan shown first, no change without a terminal or `--yes`.
import { unlinkSync } from "node:fs";
import { join } from "node:path";
import type { Deps } from "../deps";
import { EXIT, SilentExit, VxError } from "../errors";
import { ensureStateDir, writeProjectFile, writeStateFile } from "../state/files";
import { projectPaths } from "../state/paths";
import { ensureProjectRecord } from "../state/project-record";
import type { InitPlan } from "./init-plan";

const NO_ANSWER = "no answer (input closed or not understood) - nothing further was changed; re-run with --yes to accept without questions";

/** consola's select on a terminal; else `initial` (the plain path asks no such question). */
export async function choose<T extends string>(deps: Deps, question: string, options: readonly T[], initial: T): Promise<T> {
  if (!deps.prompter) return initial;
  const a = await deps.prompter.select(question, options, initial);
  if (a === undefined) throw new VxError(NO_ANSWER);
  return a;
}

/** Asks a yes/no question: consola's confirm on a terminal, else `[Y/n]` on stderr; an empty answer is yes; anything unusable ends the command. */
export async function ask(deps: Deps, question: string): Promise<boolean> {
  if (deps.prompter) {
    const a = await deps.prompter.confirm(question);
    if (a === undefined) throw new VxError(NO_ANSWER);
    return a;
  }
  deps.stderr.write(`${question} [Y/n] `);
  const line = await deps.readLine();
  const a = line?.trim().toLowerCase();
  if (a === "" || a === "y" || a === "yes") return true;
  if (a === "n" || a === "no") return false;
  deps.stderr.write("\n");
  throw new VxError(NO_ANSWER);
}

function planText(heading: string, plan: InitPlan): string {
  const changing = plan.files.filter((f) => f.action !== "unchanged");
  const lines = [heading];
  for (const f of changing) lines.push(`  ${f.action} ${f.path} (${f.why})`);
  if (changing.length === 0) lines.push("  nothing to change, every file is current");
  for (const p of plan.problems) lines.push(`  leave ${p}`);
  return `${lines.join("\n")}\n`;
}

/** Shows the plan, asks unless `yes`, writes the state dirs first (an unwritable root fails before any project file), then files in order. */
export async function applyPlan(deps: Deps, opts: { root: string; top: string; plan: InitPlan; heading: string; yes: boolean; command: string }): Promise<number> {
  const { root, top, plan } = opts;
  deps.stderr.write(planText(opts.heading, plan));
  for (const d of plan.diffs) deps.stderr.write(d);
  if (!opts.yes) {
    if (!deps.stdinIsTTY) throw new VxError("not running in a terminal, so nothing was changed - re-run with --yes to accept the plan above");
    if (!(await ask(deps, "Continue?"))) throw new VxError("nothing was changed.");
  }
  try {
    const paths = projectPaths(root, top);
    ensureStateDir(root, paths.stateDir);
    ensureProjectRecord(paths);
    writeStateFile(root, join(root, ".write-check"), "");
    unlinkSync(join(root, ".write-check"));
  } catch (err) {
    if (err instanceof VxError) throw err; // names the file (or HOME) and what to do already
    throw new VxError(
      `cannot write the state directory ${root} (${(err as NodeJS.ErrnoException).code ?? err}) - fix its permissions (it must be a directory you own, mode 0700), then run '${opts.command}' again`,
    );
  }
  for (const f of plan.files) {
    if (f.action !== "unchanged") writeProjectFile(join(top, f.path), f.content);
    deps.stdout.write(`${f.action === "create" ? "created" : f.action === "update" ? "updated" : "unchanged"} ${f.path}\n`);
  }
  for (const n of plan.notes) deps.stderr.write(`vx: ${n}\n`);
  for (const p of plan.problems) deps.stderr.write(`vx: ${p}\n`);
  if (plan.problems.length) throw new SilentExit(EXIT.error);
  return EXIT.ok;
}
