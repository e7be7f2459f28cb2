// Issue 15 item 8: vx inside a sandbox like Codex's default one (a read-only `.git`, its own pid
// namespace that ends with the command). Built here with `unshare` (a user, mount and pid
// namespace, `.git` bind-mounted read-only, pid 1 named as bubblewrap is); the real Codex sandbox
// is exercised by test/compat/codex-sandbox.test.ts.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { VX_BIN, alive, git, waitFor } from "../helpers";
import { BASH, MOUNT, canUnshare, inNamespaces } from "../namespaces";
import { type Field, field, seedTask, taskIdOf } from "./soldier-field";

/**
 * Runs vx in a new pid namespace whose pid 1 is named `bwrap`, with `readOnly` bind-mounted
 * read-only; `plain` makes vx itself pid 1 instead (a namespace no sandbox launcher made).
 */
async function inSandbox(f: Field, args: string[], opts: { readOnly?: string[]; env?: Record<string, string>; plain?: boolean } = {}) {
  const readOnly = opts.readOnly ?? [];
  // The paths travel as arguments: the first says how many there are.
  const ro = `n=$1; shift; while [ "$n" -gt 0 ]; do ${MOUNT} --bind "$1" "$1" && ${MOUNT} -o remount,bind,ro "$1" || exit 97; shift; n=$((n-1)); done; `;
  // pid 1 stays a shell (named as bubblewrap names itself) and vx runs as its child, as in Codex.
  const script = opts.plain ? `${ro}exec "$@"` : `${ro}exec -a bwrap ${BASH} -c '"$@"; exit $?' bash "$@"`;
  return inNamespaces(script, [String(readOnly.length), ...readOnly, VX_BIN, ...args], { cwd: f.project, env: { ...f.env, ...opts.env } });
}

/** Nothing of a dispatch exists: no task, lease, camp, branch, sentinel file or write probe. */
function untouched(f: Field): void {
  const tasks = existsSync(f.paths.tasksDir) ? readdirSync(f.paths.tasksDir).filter((n) => n.endsWith(".json")) : [];
  expect(tasks).toEqual([]);
  expect(existsSync(f.paths.poolFile)).toBe(false);
  expect(existsSync(f.paths.campsDir) ? readdirSync(f.paths.campsDir) : []).toEqual([]);
  expect(git(f.project, "branch", "--list", "vexillum/*")).toBe("");
  const root = join(f.home, ".vexillum");
  for (const name of ["sentinel.pid", "sentinel.json", "sentinel.log"]) expect(existsSync(join(root, name))).toBe(false);
  for (const dir of [join(f.project, ".git"), root, f.paths.stateDir]) {
    expect(readdirSync(dir).filter((n) => n.startsWith(".vx-write-check"))).toEqual([]);
  }
}

/** What Codex's default sandbox puts in a command's environment (its network off). */
const CODEX_ENV = { CODEX_THREAD_ID: "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", CODEX_SANDBOX_NETWORK_DISABLED: "1" };
const WHY =
  "Codex's default sandbox keeps .git read-only, turns the network off (herdr's and tmux's sockets too) and ends every process a command starts with the command, so vx dispatch refuses under it";
const advice = (config: string, gitDir: string, root: string) =>
  `set sandbox_mode = "danger-full-access" in ${config} (or start codex with --sandbox danger-full-access), or keep the sandbox with writable_roots = ["${gitDir}", "${root}"] and network_access = true under [sandbox_workspace_write] there and 'vx sentinel' started outside Codex`;

describe.skipIf(!canUnshare)("vx dispatch inside a sandbox", () => {
  test("under Codex with a read-only .git and its own pid namespace: one line naming Codex's setting, nothing written", async () => {
    await using f = await field();
    const gitDir = join(f.project, ".git");
    const codexHome = join(f.home, ".codex");
    const r = await inSandbox(f, ["dispatch", "a task"], { readOnly: [gitDir], env: { ...CODEX_ENV, CODEX_HOME: codexHome } });
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `vx: dispatch cannot work inside Codex's sandbox (${gitDir} is read-only here; its network is off, so herdr and tmux cannot be reached; a sentinel started here would die with this command: its own pid namespace, under bwrap) - ${advice(`${codexHome}/config.toml`, gitDir, join(f.home, ".vexillum"))}\n`,
    );
    expect(r.code).toBe(1);
    untouched(f);
  });

  test("outside Codex, a sandbox's pid namespace alone is refused, and no sentinel runs or is recorded from it", async () => {
    await using f = await field();
    const r = await inSandbox(f, ["dispatch", "a task"]);
    expect(r.stderr).toBe("vx: dispatch cannot work inside this sandbox (a sentinel started here would die with this command: its own pid namespace, under bwrap) - run it from outside the sandbox\n");
    expect(r.code).toBe(1);
    untouched(f);
    const s = await inSandbox(f, ["sentinel"]);
    expect(s.stderr).toMatch(
      /^vx: a sentinel cannot run inside a sandbox \(its own pid namespace, under bwrap\): it would die with the command that started it, and pid \d+ means nothing outside - run 'vx sentinel' outside the sandbox\n$/,
    );
    expect(s.code).toBe(1);
    untouched(f);
  });

  test("redispatch of an interrupted task refuses the same way, leaving the task, its camp and branch as they were", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "interrupted" });
    const file = join(f.paths.tasksDir, `${task.id}.json`);
    const before = readFileSync(file, "utf8");
    const head = git(f.project, "rev-parse", `vexillum/${task.id}`);
    const gitDir = join(f.project, ".git");
    const codexHome = join(f.home, ".codex");
    const r = await inSandbox(f, ["redispatch", task.id], { readOnly: [gitDir], env: { ...CODEX_ENV, CODEX_HOME: codexHome } });
    expect(r.stderr).toBe(
      `vx: redispatch cannot work inside Codex's sandbox (${gitDir} is read-only here; its network is off, so herdr and tmux cannot be reached; a sentinel started here would die with this command: its own pid namespace, under bwrap) - ${advice(`${codexHome}/config.toml`, gitDir, join(f.home, ".vexillum"))}\n`,
    );
    expect(r.code).toBe(1);
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(git(f.project, "rev-parse", `vexillum/${task.id}`)).toBe(head);
    expect(existsSync(task.camp_path as string)).toBe(true);
    expect(existsSync(join(f.home, ".vexillum", "sentinel.pid"))).toBe(false);
  });

  test("in no sandbox, a read-only .git and state root are named, with no word of a sandbox", async () => {
    await using f = await field();
    const gitDir = join(f.project, ".git");
    const root = join(f.home, ".vexillum");
    const r = await inSandbox(f, ["dispatch", "a task"], { readOnly: [gitDir, root], plain: true });
    expect(r.stderr).toBe(`vx: dispatch cannot work here (${gitDir} is read-only here; ${root} is read-only here) - it must be able to write there\n`);
    expect(r.code).toBe(1);
    untouched(f);
  });

  test("doctor run by a Codex commander inside the sandbox says it runs there and what to set", async () => {
    await using f = await field();
    expect((await f.run(["init", "--yes", "--commander", "codex"])).code).toBe(0);
    const codexHome = join(f.home, ".codex");
    const r = await inSandbox(f, ["doctor"], { env: { ...CODEX_ENV, CODEX_HOME: codexHome } });
    expect(r.stdout).toContain(
      `[warn] Codex sandbox - this vx runs inside Codex's sandbox now (its own pid namespace, under bwrap): ${WHY} - ${advice(`${codexHome}/config.toml`, join(f.project, ".git"), join(f.home, ".vexillum"))}\n`,
    );
    untouched(f);
  });

  test("with a sentinel already running outside, everything writable and the network on, dispatch from the pid namespace works; with it gone, none is started from there", async () => {
    await using f = await field();
    const sentinel = Bun.spawn([VX_BIN, "sentinel"], { cwd: f.home, env: f.env, stdout: "ignore", stderr: "ignore" });
    try {
      await waitFor(() => existsSync(join(f.home, ".vexillum", "sentinel.pid")), 20_000, "the sentinel");
      // Codex's sandbox kept with .git and the state root writable and network_access = true.
      const r = await inSandbox(f, ["dispatch", "a task"], { env: { CODEX_THREAD_ID: CODEX_ENV.CODEX_THREAD_ID } });
      expect(r.stderr).not.toContain("cannot work");
      expect(r.code).toBe(0);
      const id = taskIdOf(r.stdout);
      expect(f.task(id).camp_branch).toBe(`vexillum/${id}`);
      expect(r.stderr).not.toContain("auto-started");
    } finally {
      sentinel.kill("SIGTERM");
      await waitFor(() => !alive(sentinel.pid), 10_000, "the sentinel to stop");
    }
    // With it gone, what would auto-start one from inside (here vx wait) starts and records none.
    const id = (f.paths.tasksDir && readdirSync(f.paths.tasksDir).find((n) => n.endsWith(".json")))?.replace(/\.json$/, "");
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    const w = await inSandbox(f, ["wait", id!, "--max-wait", "1"], { env: CODEX_ENV });
    expect(w.stderr).toContain(
      "vx: warning: could not auto-start the sentinel: not from inside a sandbox (its own pid namespace, under bwrap), where it would die with this command - run 'vx sentinel' yourself in the background\n",
    );
    expect(existsSync(join(f.home, ".vexillum", "sentinel.pid"))).toBe(false);
  });
});
