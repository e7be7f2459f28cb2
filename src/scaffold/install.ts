// The files `vx init` manages, as a plan: nothing is written until it is approved.
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { readTextIfExists } from "../state/files";
import { SKILL_DIR, SKILL_FILES, skillHash } from "./skill";

export const SETTINGS_PATH = ".claude/settings.json";

type FileAction = "create" | "update" | "unchanged";

export type PlannedFile = {
  /** Path relative to the project root. */
  path: string;
  content: string;
  action: FileAction;
  /** Why the file changes, shown in the consent plan. */
  why: string;
};

/** Plans `content` for `path`, comparing with what is on disk. */
export function planFile(top: string, path: string, content: string, why: string): PlannedFile {
  const current = readTextIfExists(join(top, path));
  const action: FileAction = current === undefined ? "create" : current === content ? "unchanged" : "update";
  return { path, content, action, why };
}

function listFiles(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(full, base));
    else out.push(relative(base, full));
  }
  return out;
}

/** The installed skill's files (relative path → text); undefined when the skill dir is absent. */
export function readSkillFiles(top: string): Record<string, string> | undefined {
  const dir = join(top, SKILL_DIR);
  let names: string[];
  try {
    names = listFiles(dir);
  } catch {
    return undefined;
  }
  const files: Record<string, string> = {};
  for (const n of names) files[n] = readTextIfExists(join(dir, n)) ?? "";
  return files;
}

/** The skill is safe to (re)write: absent, current, or exactly what vx last installed. */
export function skillWritable(top: string, recordedHash: string | undefined): boolean {
  const files = readSkillFiles(top);
  if (!files) return true;
  const hash = skillHash(files);
  return hash === skillHash(SKILL_FILES) || hash === recordedHash;
}

export function skillPlan(top: string): PlannedFile[] {
  return Object.entries(SKILL_FILES).map(([name, content]) => planFile(top, join(SKILL_DIR, name), content, "the vexillum skill"));
}
