/** Doctor's project checks: the commander block, skill, models.json, commander wake files (DOC-08), Stop hook (DOC-09). */
import { join } from "node:path";
import { checkModelEffort } from "../harnesses/model-effort";
import { errorMessage } from "../errors";
import { DEFAULT_HARNESS, commanderHarnesses } from "../harnesses";
import { printable } from "../printable";
import { blockState, hasClaudeImport } from "../scaffold/block";
import { HOOK_COMMAND, hookState } from "../scaffold/hook";
import { blockFacts, blockFileOf } from "../scaffold/init-plan";
import { readSkillFiles } from "../scaffold/install";
import { SKILL_FILES, skillHash } from "../scaffold/skill";
import { readTextIfExists, sameFile } from "../state/files";
import { type ModelsFile, globalModelsPath, mergeModels, projectModelsPath, readModelsFile } from "../state/models";
import type { ProjectConfig } from "../state/schemas";
import type { Check } from "../check";

function blockChecks(top: string, config: ProjectConfig): Check[] {
  const facts = blockFacts(top);
  const { agents, claude } = facts;
  const file = blockFileOf(facts, config.block_file);
  const name = `${file} vexillum block`;
  const text = file === "AGENTS.md" ? agents : claude;
  const st = text === undefined ? { state: "absent" as const } : blockState(text);
  const out: Check[] = [];
  if (st.state === "absent") out.push({ status: "missing", name, detail: "absent" });
  else if (st.state === "current") out.push({ status: "ok", name, detail: `current (${st.lang})` });
  else out.push({ status: "warn", name, detail: st.state });
  if (file === "AGENTS.md") {
    const importName = "CLAUDE.md imports AGENTS.md";
    if (sameFile(join(top, "CLAUDE.md"), join(top, "AGENTS.md"))) {
      out.push({ status: "ok", name: importName, detail: "CLAUDE.md is a link to AGENTS.md" });
    } else if (claude === undefined) {
      out.push({ status: "warn", name: importName, detail: "CLAUDE.md does not exist, so Claude Code will not see the vexillum block; run 'vx init'" });
    } else if (!hasClaudeImport(claude)) {
      out.push({ status: "warn", name: importName, detail: "CLAUDE.md has no @AGENTS.md line, so Claude Code will not see the vexillum block; run 'vx init'" });
    } else out.push({ status: "ok", name: importName });
  }
  return out;
}

function skillCheck(top: string, config: ProjectConfig): Check {
  const name = "skill vexillum";
  const files = readSkillFiles(top);
  if (!files) return { status: "missing", name, detail: "missing" };
  const hash = skillHash(files);
  if (hash === skillHash(SKILL_FILES)) return { status: "ok", name, detail: "installed, current" };
  if (hash === config.skill_hashes?.vexillum) return { status: "warn", name, detail: "installed, stale" };
  return { status: "warn", name, detail: "installed, edited by hand" };
}

/** DOC-08's models.json line over both files (CMD-MODELS-01): valid, a default that exists, and dispatch's own model checks. */
function modelsCheck(top: string, root: string | undefined, config: ProjectConfig): Check {
  const name = "models.json";
  const invalid = (detail: string): Check => ({ status: "warn", name, detail: `invalid: ${detail}` });
  const paths = [...(root === undefined ? [] : [globalModelsPath(root)]), projectModelsPath(top)];
  const files: ModelsFile[] = [];
  const errors: string[] = [];
  for (const path of paths) {
    try {
      const file = readModelsFile(path);
      if (file) files.push(file);
      else if (path === projectModelsPath(top)) errors.push(".vexillum/models.json does not exist; run 'vx init'");
    } catch (err) {
      errors.push(errorMessage(err));
    }
  }
  if (errors.length > 0) return invalid(errors.join("; "));
  let merged: ReturnType<typeof mergeModels>;
  try {
    merged = mergeModels(files);
  } catch (err) {
    return invalid(errorMessage(err));
  }
  for (const [profile, p] of Object.entries(merged.profiles)) {
    try {
      checkModelEffort(p.harness ?? config.harness ?? DEFAULT_HARNESS, p.model, p.effort);
    } catch (err) {
      const from = files.findLast((f) => Object.hasOwn(f.models.profiles, profile))?.path;
      return invalid(`${from}: profile "${printable(profile)}": ${errorMessage(err)}`);
    }
  }
  return { status: "ok", name, detail: "valid" };
}

function commanderChecks(top: string, config: ProjectConfig, cwd: string): Check[] {
  return commanderHarnesses()
    .filter((h) => config.commander === h.name || h.commander.installed(top))
    .flatMap((h) => h.commander.fileChecks(top, cwd));
}

/** DOC-09's verdict, and the command DOC-10 probes when a vexillum handler is registered. */
export function hookCheck(top: string): { check: Check; command?: string } {
  const name = "sentinel Stop hook";
  let text: string | undefined;
  try {
    text = readTextIfExists(join(top, ".claude", "settings.json"));
  } catch (err) {
    // A report, not an abort: doctor goes on to the rest of its checks.
    return { check: { status: "warn", name, detail: `${errorMessage(err)}, so the commander is never woken when a soldier finishes; make it a readable JSON file, then run 'vx upgrade'` } };
  }
  let settings: unknown;
  try {
    settings = text === undefined ? {} : JSON.parse(text);
  } catch {
    return { check: { status: "warn", name, detail: ".claude/settings.json has invalid JSON, so the commander is never woken when a soldier finishes; fix it, then run 'vx upgrade'" } };
  }
  const state = hookState(settings);
  if (state === "missing") {
    return { check: { status: "warn", name, detail: "not registered in .claude/settings.json, so the commander is never woken when a soldier finishes; run 'vx upgrade'" } };
  }
  // The probe runs vx's own wrapper, never the file's text: settings.json comes with the repository, and doctor must not
  // execute what a clone committed.
  if (state === "outdated") return { check: { status: "warn", name, detail: "registered but out of date; run 'vx upgrade'" }, command: HOOK_COMMAND };
  return { check: { status: "ok", name, detail: "registered in .claude/settings.json" }, command: HOOK_COMMAND };
}

/** `root` is the state root, whose models.json is checked with the project's. */
export function scaffoldChecks(top: string, config: ProjectConfig, cwd: string = top, root?: string): Check[] {
  return [...blockChecks(top, config), skillCheck(top, config), modelsCheck(top, root, config), ...commanderChecks(top, config, cwd)];
}
