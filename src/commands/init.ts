/** `vx init`: prepare the current project to be orchestrated (section 9, CMD-INIT-01). */
import { installedBackend } from "../backends";
import { DEFAULT_BACKEND } from "../backends/names";
import { ignoredEnvFiles } from "../camps/include";
import { defineVxCommand } from "../command";
import { UsageError } from "../errors";
import { which } from "../exec";
import { DEFAULT_HARNESS } from "../harnesses/names";
import { configPath, locateProject } from "../project";
import { type BlockLang, hasClaudeImport } from "../scaffold/block";
import { applyPlan, ask, choose } from "../scaffold/consent";
import { type InitChoices, blockFacts, chooseLang, planInit } from "../scaffold/init-plan";
import { loadRecord } from "../state/record";
import { COMMANDERS, BACKENDS, LISTED_HARNESSES, ProjectConfigSchema } from "../state/schemas";
import { isoTime } from "../time";
import { VERSION } from "../version";
import { notifyFromFlag } from "../wakes/notify";

function enumFlag<T extends string>(name: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !allowed.includes(value as T)) {
    throw new UsageError(`unknown ${name} "${String(value)}", expected one of ${allowed.join(", ")}`, "init");
  }
  return value as T;
}

/** What a person does after init (CMD-INIT-01): a camp is forked from the last commit. */
export function nextStep(commander: string): string {
  return `next: commit what vx init wrote (each soldier's camp starts from your last commit), then start ${commander} here and ask it to dispatch a soldier; 'vx doctor' checks this machine, 'vx demo' shows the whole loop without a harness\n`;
}

export const initCommand = defineVxCommand({
  name: "init",
  summary: "Prepare the current project to be orchestrated by vexillum",
  usage: [`init [--yes|-y] [--lang en|es] [--skills|--no-skills] [--commander ${COMMANDERS.join("|")}] [--backend ${BACKENDS.join("|")}] [--harness <h>] [--notify <command>]`],
  args: {
    yes: { type: "boolean", alias: "y", description: "Accept every question without asking" },
    lang: { type: "string", valueHint: "en|es", description: "Language of the commander block (default: the file's own)" },
    skills: { type: "boolean", description: "Install the vexillum skill (--no-skills to skip it)", negativeDescription: "Do not install the vexillum skill" },
    commander: { type: "string", valueHint: COMMANDERS.join("|"), description: `The commander's harness (default ${DEFAULT_HARNESS})` },
    backend: { type: "string", valueHint: BACKENDS.join("|"), description: `Where soldiers' terminals live (default ${DEFAULT_BACKEND})` },
    harness: { type: "string", valueHint: LISTED_HARNESSES.join("|"), description: `Default soldier harness (default ${DEFAULT_HARNESS})` },
    notify: {
      type: "string",
      valueHint: "command",
      description: `Run this when a soldier finishes or needs you, the news on stdin: 'notify-send vx' (split on spaces) or a JSON argv '["ntfy","publish","my-vx"]'`,
    },
  },
  async run(args, deps) {
    if (args._.length > 0) {
      // `--notify ntfy publish x` unquoted leaves the rest as arguments: say how to pass a command.
      const hint = args.notify !== undefined ? ` (quote the whole --notify command, e.g. --notify 'ntfy publish my-vx')` : "";
      throw new UsageError(`unexpected argument "${args._[0]}"${hint}`, "init");
    }
    const notify = args.notify === undefined ? undefined : notifyFromFlag(String(args.notify));
    const lang = enumFlag<BlockLang>("language", args.lang, ["en", "es"]);
    const commander = enumFlag("commander", args.commander, COMMANDERS);
    const backend = enumFlag("backend", args.backend, BACKENDS);
    const harness = enumFlag("harness", args.harness, LISTED_HARNESSES);
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
    // STA-10: offered once, while there is no .worktreeinclude; --yes accepts it like every question.
    let worktreeInclude = await ignoredEnvFiles(top, deps.exec);
    if (interactive && worktreeInclude.length > 0) {
      const create = await ask(deps, `This checkout has ignored ${worktreeInclude.join(", ")}. Create a .worktreeinclude so each soldier's camp gets a copy?`);
      if (!create) worktreeInclude = [];
    }
    const commanderDefault = existing?.value.commander ?? DEFAULT_HARNESS;
    const backendDefault = existing?.value.backend ?? installedBackend(deps.env, (p) => which(p, deps.env.PATH) !== undefined);
    if (!backend && !existing?.value.backend && backendDefault !== DEFAULT_BACKEND) {
      deps.stderr.write(`vx init: ${DEFAULT_BACKEND} is not installed here, so soldiers will run in ${backendDefault} (--backend picks another)\n`);
    }
    const harnessDefault = existing?.value.harness ?? DEFAULT_HARNESS;
    const choices: InitChoices = {
      blockFile,
      lang: chooseLang(blockFile === "AGENTS.md" ? facts.agents : facts.claude, lang),
      skills,
      editClaude,
      commander: commander ?? (interactive ? await choose(deps, "Which harness is the commander?", COMMANDERS, commanderDefault) : commanderDefault),
      backend: backend ?? (interactive ? await choose(deps, "Where do soldiers' terminals live?", BACKENDS, backendDefault) : backendDefault),
      harness: harness ?? (interactive ? await choose(deps, "Which harness do soldiers run by default?", LISTED_HARNESSES, harnessDefault) : harnessDefault),
      notify,
      vxVersion: VERSION,
      now: isoTime(deps.clock.now()),
      worktreeInclude,
    };
    const plan = planInit(top, choices, { raw: existing?.raw, config: existing?.value });
    const code = await applyPlan(deps, { root, top, plan, heading: `vx init will prepare ${top}:`, yes, command: "vx init" });
    deps.stderr.write(nextStep(choices.commander));
    return code;
  },
});
