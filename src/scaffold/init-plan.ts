// Everything `vx init` would write (SCF-03..07, HOOK-05..07); pure apart from reading the project's files.
import { join } from "node:path";
import type { BackendName } from "../backends/names";
import { INCLUDE_FILE, includeFileText } from "../camps/include";
import { commanderHarnesses } from "../harnesses";
import type { ListedHarnessName } from "../harnesses/names";
import type { CommanderPlan } from "../harnesses/types";
import { readTextIfExists, sameFile } from "../state/files";
import { mergeForSave, renderState } from "../state/record";
import { type ProjectConfig, ProjectConfigSchema, keysOf } from "../state/schemas";
import { type BlockLang, MalformedBlockError, addClaudeImport, blockState, blockText, bodyHash, detectLang, hasClaudeImport, renderBlock, repairBlock, upsertBlock } from "./block";
import { lineDiff } from "./diff";
import { SettingsShapeError } from "../errors";
import { mergeStopHook, renderJson } from "./hook";
import { type PlannedFile, SETTINGS_PATH, planFile, readSkillFiles, skillPlan, skillWritable } from "./install";
import { SKILL_DIR, SKILL_FILES, skillHash } from "./skill";

export type InitChoices = {
  blockFile: "AGENTS.md" | "CLAUDE.md";
  lang: BlockLang;
  skills: boolean;
  /** Add `@AGENTS.md` to an existing CLAUDE.md (a new one always gets it). */
  editClaude: boolean;
  commander: ListedHarnessName;
  backend: BackendName;
  harness: ListedHarnessName;
  /** WAK-14's notifier argv from `--notify`; the recorded one is kept when absent. */
  notify?: string[];
  vxVersion: string;
  now: string;
  /** STA-10: the ignored `.env*` files a new `.worktreeinclude` names; none, no file. */
  worktreeInclude?: string[];
};

export type InitPlan = {
  files: PlannedFile[];
  /** Problems that leave a file untouched; init reports them and exits 1 after the rest. */
  problems: string[];
  /** Things left alone on purpose (hand edits), reported but not errors. */
  notes: string[];
  /** Multi-line diffs shown with the plan (an edited block against the current one). */
  diffs: string[];
};

/** Where `vx upgrade` (SCF-08) differs from init: `force` overwrites hand edits, and a confirmed repair fixes a block, each after a backup. */
type Refresh = { force: boolean; repairMalformed: boolean };

const BACKUPS = ".vexillum/backups";
const LEFT_FOR_FORCE = "edited by hand, left as it is; rerun with --force to overwrite it (a backup is saved first)";

function backup(top: string, plan: InitPlan, path: string, content: string): void {
  plan.files.push(planFile(top, path, content, "a backup of your hand-edited copy"));
}

/** Where the block lives now, and the language its file reads in. */
export function blockFacts(top: string) {
  const agents = readTextIfExists(join(top, "AGENTS.md"));
  const claude = readTextIfExists(join(top, "CLAUDE.md"));
  const inClaude = claude !== undefined && blockState(claude).state !== "absent";
  const inAgents = agents !== undefined && blockState(agents).state !== "absent";
  return { agents, claude, inAgents, inClaude };
}

/** The block's file, one rule for refresh and doctor: the recorded one while it holds the block, else the one holding it, else init's choice. */
export function blockFileOf(facts: ReturnType<typeof blockFacts>, blockFile: string | undefined): InitChoices["blockFile"] {
  const recorded = blockFile === "AGENTS.md" || blockFile === "CLAUDE.md" ? blockFile : undefined;
  const hasBlock = { "AGENTS.md": facts.inAgents, "CLAUDE.md": facts.inClaude };
  if (recorded && hasBlock[recorded]) return recorded;
  if (facts.inAgents) return "AGENTS.md";
  if (facts.inClaude) return "CLAUDE.md";
  return recorded ?? (facts.agents !== undefined ? "AGENTS.md" : "CLAUDE.md");
}

/** The block's language: `--lang`, else the file's own language, else English. */
export function chooseLang(text: string | undefined, flag: BlockLang | undefined): BlockLang {
  return flag ?? (text ? detectLang(text) : undefined) ?? "en";
}

function blockPlan(top: string, c: InitChoices, plan: InitPlan, refresh: Refresh | undefined): string | undefined {
  const text = readTextIfExists(join(top, c.blockFile)) ?? "";
  const state = blockState(text).state;
  if (state === "drifted" && refresh?.force) {
    backup(top, plan, `${BACKUPS}/${c.blockFile}`, text);
  } else if (state === "drifted") {
    if (refresh) {
      plan.notes.push(`${c.blockFile}: the vexillum block was ${LEFT_FOR_FORCE}`);
      plan.diffs.push(lineDiff(blockText(text) ?? "", renderBlock(c.lang), `${c.blockFile} (your block)`, "the current vexillum block"));
    } else {
      plan.notes.push(`${c.blockFile}: the vexillum block was edited by hand, left as it is (delete the block and run 'vx init' again to get the current one)`);
    }
    plan.files.push(planFile(top, c.blockFile, text, "the vexillum commander block"));
    return undefined;
  }
  if (state === "malformed" && refresh?.repairMalformed) {
    backup(top, plan, `.vexillum/${c.blockFile}.backup`, text);
    const next = repairBlock(text, c.lang);
    plan.files.push(planFile(top, c.blockFile, next, "the vexillum commander block, repaired"));
    return next;
  }
  try {
    const next = upsertBlock(text, c.lang);
    plan.files.push(planFile(top, c.blockFile, next, "the vexillum commander block"));
    return next;
  } catch (err) {
    if (!(err instanceof MalformedBlockError)) throw err;
    const again = refresh ? "'vx upgrade' again and confirm the repair" : "'vx init' again";
    plan.problems.push(`${c.blockFile} has a malformed vexillum block (unbalanced or duplicate markers), leaving it untouched - fix or remove the markers, then run ${again}`);
    return undefined;
  }
}

/** A wake template: refreshed only while it is what vx wrote (or absent), never over hand edits. */
function wakeFilePlan(top: string, path: string, content: string, why: string, fileHashes: Record<string, string>, plan: InitPlan, refresh: Refresh | undefined): void {
  const current = readTextIfExists(join(top, path));
  const unedited = current === undefined || current === content || bodyHash(current) === fileHashes[path];
  if (!unedited && refresh?.force) backup(top, plan, `${BACKUPS}/${path}`, current);
  if (unedited || refresh?.force) {
    plan.files.push(planFile(top, path, content, why));
    fileHashes[path] = bodyHash(content);
  } else if (refresh) {
    plan.notes.push(`${path}: ${LEFT_FOR_FORCE}`);
  } else {
    plan.notes.push(`${path}: edited by hand, left as it is (delete it and run 'vx init' again to get the current one)`);
  }
}

function jsonPlan(top: string, path: string, merge: (x: unknown) => { next: unknown }, why: string, plan: InitPlan): void {
  const text = readTextIfExists(join(top, path));
  let parsed: unknown = {};
  if (text !== undefined) {
    try {
      parsed = JSON.parse(text);
    } catch {
      plan.problems.push(`${path} has invalid JSON, leaving it untouched`);
      return;
    }
  }
  try {
    plan.files.push(planFile(top, path, renderJson(merge(parsed).next), why));
  } catch (err) {
    if (!(err instanceof SettingsShapeError)) throw err;
    plan.problems.push(`${path}: ${err.message}, leaving it untouched`);
  }
}

export function planInit(top: string, c: InitChoices, existing: { raw?: Record<string, unknown>; config?: ProjectConfig }, refresh?: Refresh): InitPlan {
  const plan: InitPlan = { files: [], problems: [], notes: [], diffs: [] };
  const written = blockPlan(top, c, plan, refresh);
  // A CLAUDE.md that is a link to AGENTS.md already shows Claude Code the block.
  if (c.blockFile === "AGENTS.md" && !sameFile(join(top, "CLAUDE.md"), join(top, "AGENTS.md"))) {
    const claude = readTextIfExists(join(top, "CLAUDE.md"));
    if (claude === undefined) plan.files.push(planFile(top, "CLAUDE.md", "@AGENTS.md\n", "imports AGENTS.md for Claude Code"));
    else if (!hasClaudeImport(claude) && c.editClaude) {
      plan.files.push(planFile(top, "CLAUDE.md", addClaudeImport(claude), "imports AGENTS.md for Claude Code"));
    }
  }
  jsonPlan(top, SETTINGS_PATH, mergeStopHook, "the sentinel Stop hook", plan);
  const fileHashes: Record<string, string> = { ...(existing.config?.file_hashes ?? {}) };
  const ctx: CommanderPlan = {
    top,
    refresh: refresh !== undefined,
    wakeFile: (path, content, why) => wakeFilePlan(top, path, content, why, fileHashes, plan, refresh),
    json: (path, merge, why) => jsonPlan(top, path, merge, why, plan),
    note: (text) => plan.notes.push(text),
    exists: (path) => readTextIfExists(join(top, path)) !== undefined,
  };
  for (const h of commanderHarnesses()) if (c.commander === h.name || h.commander.installed(top)) h.commander.plan(ctx);
  const skillHashes: Record<string, string> = { ...(existing.config?.skill_hashes ?? {}) };
  if (c.skills) {
    const writable = skillWritable(top, skillHashes.vexillum);
    if (!writable && refresh?.force) {
      for (const [name, text] of Object.entries(readSkillFiles(top) ?? {})) backup(top, plan, `${BACKUPS}/skills/vexillum/${name}`, text);
    }
    if (writable || refresh?.force) {
      plan.files.push(...skillPlan(top));
      skillHashes.vexillum = skillHash(SKILL_FILES);
    } else if (refresh) {
      plan.notes.push(`Skill vexillum: ${LEFT_FOR_FORCE}`);
    } else {
      plan.notes.push(`Skill vexillum: edited by hand, left as it is (delete ${SKILL_DIR} and run 'vx init' again to get the current one)`);
    }
  }
  const config: ProjectConfig = {
    version: 1,
    initialized_at: existing.config?.initialized_at ?? c.now,
    vx_version: c.vxVersion,
    commander: c.commander,
    backend: c.backend,
    harness: c.harness,
    notify: c.notify ?? existing.config?.notify,
    block_file: c.blockFile,
    block_lang: c.lang,
    block_hash: written === undefined ? existing.config?.block_hash : templateHash(c.lang),
    skill_hashes: Object.keys(skillHashes).length ? skillHashes : undefined,
    file_hashes: Object.keys(fileHashes).length ? fileHashes : undefined,
    camp_setup: existing.config?.camp_setup,
    camp_setup_timeout: existing.config?.camp_setup_timeout,
  };
  const content = renderState(mergeForSave(config, keysOf(ProjectConfigSchema), existing.raw));
  plan.files.push(planFile(top, ".vexillum/config.json", content, "marks the project initialized"));
  const models = readTextIfExists(join(top, ".vexillum", "models.json"));
  plan.files.push(planFile(top, ".vexillum/models.json", models ?? `${JSON.stringify({ profiles: {} }, null, 2)}\n`, "model profiles, yours to edit"));
  if (c.worktreeInclude?.length) {
    plan.files.push(planFile(top, INCLUDE_FILE, includeFileText(c.worktreeInclude), "copies your ignored .env files into each camp"));
  }
  plan.files.push(planFile(top, ".vexillum/.gitignore", withForumIgnored(readTextIfExists(join(top, ".vexillum", ".gitignore"))), "keeps forum scratch files out of git"));
  return plan;
}

/** The hash in the current template's BEGIN marker. */
function templateHash(lang: BlockLang): string {
  return /hash:([0-9a-f]{8})/.exec(renderBlock(lang))?.[1] ?? "";
}

/** `.vexillum/.gitignore` with a `forum/` line, keeping every line already there. */
function withForumIgnored(current: string | undefined): string {
  if (current === undefined || current === "") return "forum/\n";
  if (current.split(/\r?\n/).some((l) => l.trim() === "forum/" || l.trim() === "/forum/")) return current;
  return `${current}${current.endsWith("\n") ? "" : "\n"}forum/\n`;
}
