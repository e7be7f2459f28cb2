/**
 * Runs before any test file imports src/: points HOME at a throwaway directory, gives the run its
 * own temp dir (every mkdtemp of the suite lands inside it, and it is removed when the run ends),
 * clears every variable that would make vx talk to a real multiplexer or change its timing, and
 * gives git its own identity and no global or system config (`git-env.ts`).
 */
import { afterAll, afterEach } from "bun:test";
import { type Dirent, chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { codexDaemonSnapshot, sweepCodexDaemon } from "./codex-daemon";
import { verifyExecStubs } from "./fakes/exec";
import { stopFakeHerdrServer } from "./fakes/herdr-host";
import { GIT_TEST_ENV } from "./git-env";
import { sweepSshd } from "./sshd-procs";

const runDir = mkdtempSync(join(scratchBase(), "vx-test-run-"));
const codexBefore = codexDaemonSnapshot();
// Searchable by others, like /tmp: a test runs vx as another user inside it.
chmodSync(runDir, 0o755);
process.env.TMPDIR = runDir;
// A preload's afterAll runs once, after every test file. A test that timed out never ran its own
// cleanup, so any tmux server whose socket is inside the run dir (TMUX_TMPDIR of a test) is
// stopped first: the socket's place proves the server is the suite's.
afterAll(async () => {
  // The fake herdr's server of this test process, if one was started (it also ends with the process).
  stopFakeHerdrServer();
  for (const socket of tmuxSockets(runDir)) {
    Bun.spawnSync(["tmux", "-S", socket, "kill-server"], { stdout: "ignore", stderr: "ignore" });
  }
  // Likewise an sshd of test/sshd-real.ts, its sessions and their programs: its private dir inside
  // the run dir proves it is the suite's.
  sweepSshd(runDir);
  rmSync(runDir, { recursive: true, force: true });
  // What Codex's daemon left outside the run dir (codex-daemon.ts).
  await sweepCodexDaemon(codexBefore);
});

/** Sockets in `tmux-<uid>` directories below `dir`; links are not followed (a test may leave a loop). */
function tmuxSockets(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // gone, or not ours to read
  }
  return entries.flatMap((e) => {
    if (e.isDirectory()) return tmuxSockets(join(dir, e.name));
    return /^tmux-\d+$/.test(basename(dir)) && !e.isSymbolicLink() ? [join(dir, e.name)] : [];
  });
}

// Every test that made an exec stub fails when a call it expected was never made, or an
// unexpected one was made (even one the code under test caught and swallowed).
afterEach(verifyExecStubs);

process.env.HOME = mkdtempSync(join(runDir, "vx-test-home-"));
for (const name of Object.keys(process.env)) {
  if (name.startsWith("HERDR_") || name.startsWith("TMUX") || name.startsWith("VX_")) delete process.env[name];
}
// Nothing of the caller's git (a hook's GIT_DIR, a GIT_CONFIG_GLOBAL) reaches a test; the
// environments tests build from scratch start from GIT_TEST_ENV too (helpers.ts).
for (const name of Object.keys(process.env)) if (name.startsWith("GIT_")) delete process.env[name];
Object.assign(process.env, GIT_TEST_ENV);

// Bun.spawn and Bun.spawnSync called without `env` give the child the environment this process
// started with, not process.env as set above (node:child_process and Bun.$ pass it explicitly):
// the caller's HOME, TMUX and missing git identity reached every such child. They get the
// environment above instead; a call that names its own `env` is left as it is.
type SpawnOpts = { env?: Record<string, string | undefined> } | undefined;
for (const name of ["spawn", "spawnSync"] as const) {
  const real = Bun[name] as (...args: unknown[]) => unknown;
  const withEnv = (o: SpawnOpts) => ({ ...o, env: o?.env ?? { ...process.env } });
  (Bun as Record<string, unknown>)[name] = (first: unknown, opts?: SpawnOpts) => (Array.isArray(first) ? real(first, withEnv(opts)) : real(withEnv(first as SpawnOpts)));
}

/**
 * Where the run's temp dir is made. `bun run test` asks for RAM (VXTEST_SCRATCH=ram): then /dev/shm, when it is a tmpfs
 * that runs programs and has 4 GiB free and the caller set no TMPDIR. The suite makes and removes thousands of
 * repositories, worktrees and fsynced state files: on a disk (ext4 mounted with discard, on the 2-CPU test machine) that
 * cost about a tenth of its CPU. Otherwise, and for the compat and browser suites, the system's temp dir. Linux only.
 */
function scratchBase(): string {
  const shm = "/dev/shm";
  if (process.env.VXTEST_SCRATCH !== "ram" || process.env.TMPDIR) return tmpdir();
  try {
    const line = readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .findLast((l) => l.split(" ")[4] === shm); // the last mount there is the one seen
    if (!line) return tmpdir();
    const [mount, fs] = line.split(" - ");
    const options = mount!.split(" ")[5]!.split(",");
    const { bavail, bsize } = statfsSync(shm);
    const free = bavail * bsize;
    return fs!.startsWith("tmpfs ") && !options.includes("noexec") && free >= 4 * 1024 ** 3 ? shm : tmpdir();
  } catch {
    return tmpdir();
  }
}
