/**
 * Runs before any test file imports src/: points HOME at a throwaway directory and clears every
 * variable that would make vx talk to a real multiplexer or change its timing.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.HOME = mkdtempSync(join(tmpdir(), "vx-test-home-"));
for (const name of Object.keys(process.env)) {
  if (name.startsWith("HERDR_") || name.startsWith("TMUX") || name.startsWith("VX_")) delete process.env[name];
}
process.env.GIT_AUTHOR_NAME = "vx test";
process.env.GIT_AUTHOR_EMAIL = "vx@test.invalid";
process.env.GIT_COMMITTER_NAME = "vx test";
process.env.GIT_COMMITTER_EMAIL = "vx@test.invalid";
