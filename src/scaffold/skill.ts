// The embedded skill (SCF-06); its hash in config.json tells a stale copy from a hand-edited one (DOC-08, SCF-08).

import { LANDING_MD, SENTINEL_MD, SKILL_MD, STRIKING_MD } from "./skill-text";

/** Where the skill lives in a project. Pi reads it too, through `.pi/settings.json` (SCF-07). */
export const SKILL_DIR = ".claude/skills/vexillum";

/** Relative path inside SKILL_DIR → content. */
export const SKILL_FILES: Readonly<Record<string, string>> = Object.freeze({
  "SKILL.md": SKILL_MD,
  "sentinel.md": SENTINEL_MD,
  "landing.md": LANDING_MD,
  "striking.md": STRIKING_MD,
});

/** SHA-256 over `path NUL content NUL` in sorted order: the NULs keep text moved across a path boundary from hashing alike. */
export function skillHash(files: Readonly<Record<string, string>>): string {
  const hash = new Bun.CryptoHasher("sha256");
  for (const path of Object.keys(files).sort()) {
    hash.update(path).update("\0").update(files[path]).update("\0");
  }
  return hash.digest("hex");
}
