// `vx upgrade --scaffold-only` (CMD-UPGRADE-02, SCF-08): init's plan with the project's own choices and consent rules. Hand
// edits stay unless `force`, and a malformed block is repaired only once confirmed, each after a backup.
import { DEFAULT_BACKEND } from "../backends/names";
import type { Deps } from "../deps";
import { VxError } from "../errors";
import { DEFAULT_HARNESS } from "../harnesses/names";
import { configPath, locateProject } from "../project";
import { loadRecord } from "../state/record";
import { ProjectConfigSchema } from "../state/schemas";
import { isoTime } from "../time";
import { VERSION } from "../version";
import { type BlockLang, blockState } from "./block";
import { applyPlan, ask } from "./consent";
import { type InitChoices, blockFacts, blockFileOf, chooseLang, planInit } from "./init-plan";
import { readSkillFiles } from "./install";

export type RefreshFlags = { yes: boolean; force: boolean; lang?: BlockLang; skills?: boolean };

export async function refreshScaffold(deps: Deps, flags: RefreshFlags): Promise<number> {
  const { root, top } = await locateProject(deps);
  const existing = loadRecord(configPath(top), ProjectConfigSchema);
  if (!existing) throw new VxError("project not initialized, run 'vx init' first");
  const config = existing.value;
  const facts = blockFacts(top);
  const blockFile = blockFileOf(facts, config.block_file);
  const text = blockFile === "AGENTS.md" ? facts.agents : facts.claude;
  let repairMalformed = false;
  if (text !== undefined && blockState(text).state === "malformed") {
    repairMalformed =
      flags.yes || (deps.stdinIsTTY && (await ask(deps, `${blockFile} has a malformed vexillum block (unbalanced or duplicate markers). Back it up to .vexillum/${blockFile}.backup and repair it?`)));
  }
  const choices: InitChoices = {
    blockFile,
    lang: chooseLang(text, flags.lang),
    // A skill the general removed stays removed unless they ask for it again.
    skills: flags.skills ?? readSkillFiles(top) !== undefined,
    // An existing CLAUDE.md without the import is the general's file; doctor says how to add it.
    editClaude: false,
    commander: config.commander ?? DEFAULT_HARNESS,
    backend: config.backend ?? DEFAULT_BACKEND,
    harness: config.harness ?? DEFAULT_HARNESS,
    vxVersion: VERSION,
    now: isoTime(deps.clock.now()),
  };
  const plan = planInit(top, choices, { raw: existing.raw, config }, { force: flags.force, repairMalformed });
  return applyPlan(deps, { root, top, plan, heading: `vx upgrade will refresh ${top}:`, yes: flags.yes, command: "vx upgrade" });
}
