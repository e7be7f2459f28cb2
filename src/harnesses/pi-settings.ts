/**
 * The project Pi settings the Pi commander relies on (SCF-07); the wake extension itself is in
 * pi-extension.ts.
 */

import { SettingsShapeError } from "../errors";

export const PI_EXTENSION_PATH = ".pi/extensions/vexillum-wake.ts";
export const PI_SETTINGS_PATH = ".pi/settings.json";

/** The skills entry `.pi/settings.json` needs; Pi resolves it relative to `.pi/`. */
export const PI_SKILLS_ENTRY = "../.claude/skills";

/**
 * SCF-07: make Pi load the project's skills from `.claude/skills`, keeping every other key and
 * entry as it is (the new key goes last). An entry for that path already there, as an include
 * (`../.claude/skills`, with `./` or a trailing `/`, or forced with `+`) or as an exclusion
 * (`!` or `-`), is the user's decision and is left alone. Throws SettingsShapeError when the root
 * is not an object or `skills` is not an array of entries.
 */
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

// --- internal ---

function samePath(entry: string): boolean {
  const path = entry
    .trim()
    .replace(/^[!+-]/, "")
    .replace(/^\.\/(?=\.\.)/, "")
    .replace(/\/+$/, "");
  return path === PI_SKILLS_ENTRY;
}
