import { SettingsShapeError } from "../errors";

export const PI_EXTENSION_PATH = ".pi/extensions/vexillum-wake.ts";
export const PI_SETTINGS_PATH = ".pi/settings.json";

/** Pi resolves it relative to `.pi/`. */
export const PI_SKILLS_ENTRY = "../.claude/skills";

/** SCF-07: Pi loads `.claude/skills`; an entry for that path already there, even an exclusion (`!`, `-`), is the user's. */
export function mergePiSettings(settings: unknown): { next: Record<string, unknown>; changed: boolean } {
  if (typeof settings !== "object" || settings === null || Array.isArray(settings)) {
    throw new SettingsShapeError(".pi/settings.json must hold a JSON object at the top level", "");
  }
  const next = JSON.parse(JSON.stringify(settings)) as Record<string, unknown>;
  if (!Object.hasOwn(next, "skills")) {
    next.skills = [PI_SKILLS_ENTRY];
    return { next, changed: true };
  }
  const skills = next.skills;
  if (!Array.isArray(skills)) {
    throw new SettingsShapeError('"skills" must be an array of paths', "skills");
  }
  if (skills.some((entry) => typeof entry === "string" && samePath(entry))) return { next, changed: false };
  skills.push(PI_SKILLS_ENTRY);
  return { next, changed: true };
}

function samePath(entry: string): boolean {
  const path = entry
    .trim()
    .replace(/^[!+-]/, "")
    .replace(/^\.\/(?=\.\.)/, "")
    .replace(/\/+$/, "");
  return path === PI_SKILLS_ENTRY;
}
