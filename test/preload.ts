/**
 * Runs before any test file imports src/: points HOME at a throwaway directory, gives the run its
 * own temp dir (every mkdtemp of the suite lands inside it, and it is removed when the run ends),
 * and clears every variable that would make vx talk to a real multiplexer or change its timing.
 */
import { afterAll, afterEach } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyExecStubs } from "./fakes/exec";

const runDir = mkdtempSync(join(tmpdir(), "vx-test-run-"));
// Searchable by others, like /tmp: a test runs vx as another user inside it.
chmodSync(runDir, 0o755);
process.env.TMPDIR = runDir;
// A preload's afterAll runs once, after every test file. A test that timed out never ran its own
// cleanup, so any tmux server whose socket is inside the run dir (TMUX_TMPDIR of a test) is
// stopped first: the socket's place proves the server is the suite's.
afterAll(() => {
  for (const rel of readdirSync(runDir, { recursive: true }) as string[]) {
    if (!/(^|\/)tmux-\d+\/[^/]+$/.test(rel)) continue;
    Bun.spawnSync(["tmux", "-S", join(runDir, rel), "kill-server"], { stdout: "ignore", stderr: "ignore" });
  }
  rmSync(runDir, { recursive: true, force: true });
});

// Every test that made an exec stub fails when a call it expected was never made, or an
// unexpected one was made (even one the code under test caught and swallowed).
afterEach(verifyExecStubs);

process.env.HOME = mkdtempSync(join(runDir, "vx-test-home-"));
for (const name of Object.keys(process.env)) {
  if (name.startsWith("HERDR_") || name.startsWith("TMUX") || name.startsWith("VX_")) delete process.env[name];
}
process.env.GIT_AUTHOR_NAME = "vx test";
process.env.GIT_AUTHOR_EMAIL = "vx@test.invalid";
process.env.GIT_COMMITTER_NAME = "vx test";
process.env.GIT_COMMITTER_EMAIL = "vx@test.invalid";
