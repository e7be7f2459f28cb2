/** `vx init`: prepare the current project to be orchestrated (section 9, CMD-INIT-01). */
import { unlinkSync } from "node:fs";
import { join } from "node:path";
import { defineVxCommand } from "../command";
import type { Deps } from "../deps";
import { EXIT, SilentExit, StateError, UsageError, VxError } from "../errors";
import { configPath, locateProject } from "../project";
import { type BlockLang, hasClaudeImport } from "../scaffold/block";
import { type InitChoices, type InitPlan, blockFacts, chooseLang, planInit } from "../scaffold/init-plan";
import { ensureStateDir, writeProjectFile, writeStateFile } from "../state/files";
import { projectPaths } from "../state/paths";
import { ensureProjectRecord } from "../state/project-record";
import { loadRecord } from "../state/record";
import { COMMANDERS, BACKENDS, HARNESSES, ProjectConfigSchema } from "../state/schemas";
import { isoTime } from "../time";
import { VERSION } from "../version";

const NO_ANSWER =
  "no answer (input closed or not understood) - nothing further was changed; re-run with --yes to accept without questions";

function enumFlag<T extends string>(name: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !allowed.includes(value as T)) {
    throw new UsageError(`unknown ${name} "${String(value)}", expected one of ${allowed.join(", ")}`, "init");
  }
  return value as T;
}

/** Asks a [Y/n] question on stderr; an empty answer is yes; anything unusable ends init. */
async function ask(deps: Deps, question: string): Promise<boolean> {
  deps.stderr.write(`${question} [Y/n] `);
  const line = await deps.readLine();
  const a = line?.trim().toLowerCase();
  if (a === "" || a === "y" || a === "yes") return true;
  if (a === "n" || a === "no") return false;
  deps.stderr.write("\n");
  throw new VxError(NO_ANSWER);
}

function planText(top: string, plan: InitPlan): string {
  const changing = plan.files.filter((f) => f.action !== "unchanged");
  const lines = [`vx init will prepare ${top}:`];
  for (const f of changing) lines.push(`  ${f.action} ${f.path} (${f.why})`);
  if (changing.length === 0) lines.push("  nothing to change, every file is current");
  for (const p of plan.problems) lines.push(`  leave ${p}`);
  return `${lines.join("\n")}\n`;
}

export const initCommand = defineVxCommand({
  name: "init",
  summary: "Prepare the current project to be orchestrated by vexillum",
  usage: [
    "init [--yes|-y] [--lang en|es] [--skills|--no-skills] [--commander claude|pi|opencode|codex] [--backend herdr|tmux] [--harness <h>]",
  ],
  args: {
    yes: { type: "boolean", alias: "y", description: "Accept every question without asking" },
    lang: { type: "string", valueHint: "en|es", description: "Language of the commander block (default: the file's own)" },
    skills: { type: "boolean", description: "Install the vexillum skill (--no-skills to skip it)", negativeDescription: "Do not install the vexillum skill" },
    commander: { type: "string", valueHint: "claude|pi|opencode|codex", description: "The commander's harness (default claude)" },
    backend: { type: "string", valueHint: "herdr|tmux", description: "Where soldiers' terminals live (default herdr)" },
    harness: { type: "string", valueHint: "claude|codex|pi|opencode", description: "Default soldier harness (default claude)" },
  },
  async run(args, deps) {
    if (args._.length > 0) throw new UsageError(`unexpected argument "${args._[0]}"`, "init");
    const lang = enumFlag<BlockLang>("language", args.lang, ["en", "es"]);
    const commander = enumFlag("commander", args.commander, COMMANDERS);
    const backend = enumFlag("backend", args.backend, BACKENDS);
    const harness = enumFlag("harness", args.harness, HARNESSES);
    const yes = Boolean(args.yes);
    const skillsFlag = args.skills as boolean | undefined;
    const { root, top } = await locateProject(deps);
    const existing = loadRecord(configPath(top), ProjectConfigSchema);
    const interactive = !yes && deps.stdinIsTTY;

    const facts = blockFacts(top);
    let blockFile: InitChoices["blockFile"] = facts.inAgents || (!facts.inClaude && facts.agents !== undefined) ? "AGENTS.md" : "CLAUDE.md";
    if (interactive && !facts.inClaude && !facts.inAgents && facts.agents === undefined) {
      const useClaude = await ask(deps, "This project has no AGENTS.md. Put the vexillum commander block in CLAUDE.md instead?");
      blockFile = useClaude ? "CLAUDE.md" : "AGENTS.md";
    }
    let skills = skillsFlag ?? true;
    if (interactive && skillsFlag === undefined) {
      deps.stderr.write("These skills teach the commander how to use vexillum well.\n");
      skills = await ask(deps, "Install the vexillum skill?");
    }
    let editClaude = true;
    if (interactive && blockFile === "AGENTS.md" && facts.claude !== undefined && !hasClaudeImport(facts.claude)) {
      editClaude = await ask(deps, "CLAUDE.md exists. Add an @AGENTS.md line to it so Claude Code reads the block?");
    }
    const choices: InitChoices = {
      blockFile,
      lang: chooseLang(blockFile === "AGENTS.md" ? facts.agents : facts.claude, lang),
      skills,
      editClaude,
      commander: commander ?? existing?.value.commander ?? "claude",
      backend: backend ?? existing?.value.backend ?? "herdr",
      harness: harness ?? existing?.value.harness ?? "claude",
      vxVersion: VERSION,
      now: isoTime(deps.clock.now()),
    };
    const plan = planInit(top, choices, { raw: existing?.raw, config: existing?.value });
    deps.stderr.write(planText(top, plan));
    if (!yes) {
      if (!deps.stdinIsTTY) throw new VxError("not running in a terminal, so nothing was changed.");
      if (!(await ask(deps, "Continue?"))) throw new VxError("nothing was changed.");
    }
    // The state dirs first: an unwritable state root fails before any project file changes.
    try {
      const paths = projectPaths(root, top);
      ensureStateDir(root, paths.stateDir);
      ensureProjectRecord(paths);
      writeStateFile(root, join(root, ".write-check"), "");
      unlinkSync(join(root, ".write-check"));
    } catch (err) {
      if (err instanceof StateError) throw err; // names the file and what to do already
      throw new VxError(`cannot write the state directory ${root} (${(err as NodeJS.ErrnoException).code ?? err}) - fix its permissions (it must be a directory you own, mode 0700), then run 'vx init' again`);
    }
    for (const f of plan.files) {
      if (f.action !== "unchanged") writeProjectFile(join(top, f.path), f.content);
      deps.stdout.write(`${f.action === "create" ? "created" : f.action === "update" ? "updated" : "unchanged"} ${f.path}\n`);
    }
    for (const n of plan.notes) deps.stderr.write(`vx: ${n}\n`);
    for (const p of plan.problems) deps.stderr.write(`vx: ${p}\n`);
    if (plan.problems.length) throw new SilentExit(EXIT.error);
    return EXIT.ok;
  },
});
