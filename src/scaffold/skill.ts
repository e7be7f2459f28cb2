/**
 * The embedded `vexillum` skill (SPEC SCF-06), installed under SKILL_DIR. Its content hash is
 * recorded in `.vexillum/config.json` so `vx upgrade` and `vx doctor` can tell a stale copy (an
 * older vx wrote it) from one edited by hand (DOC-08, SCF-08).
 */

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

/**
 * SHA-256 hex over `path NUL content NUL` for every file in sorted path order. The NULs keep
 * two different file sets from hashing alike by moving text across a path boundary; sorting makes
 * the hash independent of directory listing order.
 */
export function skillHash(files: Readonly<Record<string, string>>): string {
  const hash = new Bun.CryptoHasher("sha256");
  for (const path of Object.keys(files).sort()) {
    hash.update(path).update("\0").update(files[path]).update("\0");
  }
  return hash.digest("hex");
}
