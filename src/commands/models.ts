/** `vx models [--json]` (CMD-MODELS-01): the model profiles a dispatch can use, merged from both files. */
import { defineVxCommand } from "../command";
import { EXIT, UsageError } from "../errors";
import { printable, printableLine } from "../printable";
import { openProject } from "../project";
import { type MergedModels, loadModels, profileTriple } from "../state/models";

/** Each profile, its `when` beneath, the default marked; then the files merged. */
export function modelsText(models: MergedModels): string {
  const out: string[] = [];
  for (const [name, p] of Object.entries(models.profiles)) {
    out.push(`${printableLine(name)}  ${profileTriple(p)}${name === models.default ? "  (default)" : ""}`);
    if (p.when !== undefined) for (const line of p.when.split(/\r?\n/)) out.push(`    ${line}`);
  }
  if (out.length === 0) out.push("no profiles yet; add them to .vexillum/models.json");
  out.push(`Source: ${models.sources.length === 0 ? "none (no models.json found)" : models.sources.map(printableLine).join(", ")}`);
  // Names and texts come from files the user (or a clone) wrote: never let them drive the terminal.
  return `${out.map(printable).join("\n")}\n`;
}

/** The merged document itself: what a dispatch reads, without where it came from. */
export function modelsJson(models: MergedModels): string {
  const { sources: _, ...doc } = models;
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export const modelsCommand = defineVxCommand({
  name: "models",
  summary: "List the model profiles a dispatch can use",
  usage: ["models [--json]"],
  args: {
    json: { type: "boolean", description: "Print the merged models.json document" },
  },
  async run(args, deps) {
    if (args._.length > 0) throw new UsageError(`unexpected argument "${args._[0]}"`, "models");
    const project = await openProject(deps);
    const models = loadModels(project.root, project.paths.project);
    deps.stdout.write(args.json ? modelsJson(models) : modelsText(models));
    return EXIT.ok;
  },
});
