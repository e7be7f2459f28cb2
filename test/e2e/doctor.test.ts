// `vx doctor` end to end (section 16): line formats, summary and exit code, read-only.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { configure, installFakeHerdr, stopServer } from "../fakes/herdr-control";
import { HARNESSES, LISTED_HARNESS_NAMES } from "../../src/harnesses";
import { projectKey } from "../../src/state/paths";
import { type Sandbox, VX_BIN, sandbox, taskFixture, vx, waitFor, writeExecutable, writeTaskFile } from "../helpers";
import { REAL_HERDR_PROTOCOL, REAL_HERDR_VERSION, startRealHerdr } from "../herdr-real";
import { sandboxPath } from "../tool-path";
import { initProject } from "../init-project";

// Doctor's line per harness, in the registry's order; every one but Claude Code is optional here.
const LABELS = LISTED_HARNESS_NAMES.map((h) => HARNESSES[h].label);
const OPTIONAL = LABELS.filter((l) => l !== "Claude Code").join(", ");

/** A sandbox with a fake claude, an initialized project and vx in ~/.local/bin. */
async function readyProject(s: Sandbox): Promise<void> {
  writeExecutable(join(s.bin, "claude"), "#!/bin/sh\nexit 0\n");
  mkdirSync(join(s.home, ".local", "bin"), { recursive: true });
  symlinkSync(VX_BIN, join(s.home, ".local", "bin", "vx"));
  await initProject(s.project, s.env);
}

/** A ready project with the fake herdr, for what a real server cannot be made to show (an old version). */
async function ready(): Promise<Sandbox & { herdr: ReturnType<typeof installFakeHerdr> }> {
  const s = sandbox();
  const herdr = installFakeHerdr(s.bin);
  Object.assign(s.env, herdr);
  await readyProject(s);
  return Object.assign(s, { herdr });
}

/** Every path under `dir` with its type, mode, size, mtime and content. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      out[p] = `${st.mode}:${st.size}:${st.mtimeMs}`;
      if (st.isDirectory()) walk(p);
      else out[p] += `:${readFileSync(p, "utf8")}`;
    }
  };
  walk(dir);
  return out;
}

/** Doctor in a ready environment: every check, in order, the herdr lines from the real server, exit 0. */
async function readyEnvironment(s: Sandbox): Promise<void> {
  const r = await vx(["doctor"], { cwd: s.project, env: s.env });
  expect(r.stderr).toBe("");
  const lines = r.stdout.split("\n");
  const names = lines.filter((l) => l.startsWith("[")).map((l) => l.replace(/^\[\w+\] /, "").split(" - ")[0]);
  expect(names).toEqual([
    "git",
    "herdr",
    "herdr version",
    "herdr server",
    "tmux",
    ...LABELS,
    "~/.vexillum/",
    "git repository",
    "project initialized",
    "another vx earlier in PATH",
    "CLAUDE.md vexillum block",
    "skill vexillum",
    "models.json",
    "sentinel Stop hook",
    "sentinel Stop hook finds vx",
    "sentinel",
    "forum",
    "commanders",
    "pending wakes",
    "camps",
  ]);
  expect(r.stdout).toContain(`[ok] herdr version - ${REAL_HERDR_VERSION} (the version vx's tests run)\n`);
  expect(r.stdout).toContain(`[ok] herdr server - running (protocol ${REAL_HERDR_PROTOCOL})\n`);
  expect(r.stdout).toContain("[optional] Codex - codex not found in PATH (only needed to run Codex soldiers or commanders)\n");
  expect(r.stdout).toContain("[ok] another vx earlier in PATH - none (no vx on PATH)\n");
  expect(r.stdout).toContain("[ok] ~/.vexillum/\n");
  expect(r.stdout).toContain("[ok] CLAUDE.md vexillum block - current (en)\n");
  expect(r.stdout).toContain("[ok] skill vexillum - installed, current\n");
  expect(r.stdout).toContain("[ok] models.json - valid\n");
  expect(r.stdout).toContain("[ok] sentinel Stop hook - registered in .claude/settings.json\n");
  expect(r.stdout).toContain("[ok] sentinel Stop hook finds vx - found with a minimal environment\n");
  expect(r.stdout).toContain("[ok] sentinel - not running (the next 'vx dispatch' starts it), 0 sentinel await(s) waiting\n");
  expect(r.stdout).toContain("[ok] commanders - none registered\n");
  expect(r.stdout).toContain("[ok] pending wakes - 0 waiting\n");
  expect(r.stdout).toEndWith(`\n\nEnvironment ready (optional: ${OPTIONAL} missing).\n`);
  expect(r.code).toBe(0);
}

describe("vx doctor", () => {
  test("a ready environment on the real herdr: every check, in order, exit 0; then its server stopped", async () => {
    using s = sandbox();
    const h = await startRealHerdr();
    try {
      Object.assign(s.env, { PATH: sandboxPath(s.bin, h.binDir), HERDR_SOCKET_PATH: h.socket });
      await readyProject(s);
      await readyEnvironment(s);
      await h.halt();
      const down = await vx(["doctor"], { cwd: s.project, env: s.env });
      expect(down.stdout).toContain(`[ok] herdr version - ${REAL_HERDR_VERSION} (the version vx's tests run)\n`);
      expect(down.stdout).toContain("[warn] herdr server - not running\n");
      expect(down.code).toBe(0);
    } finally {
      await h.stop();
    }
  }, 60_000);

  test("is read-only: the state root and the project are unchanged", async () => {
    using s = await ready();
    chmodSync(join(s.home, ".vexillum"), 0o755);
    const before = { state: tree(join(s.home, ".vexillum")), project: tree(s.project) };
    await vx(["doctor"], { cwd: s.project, env: s.env });
    expect({ state: tree(join(s.home, ".vexillum")), project: tree(s.project) }).toEqual(before);
  });

  test("warnings: version out of range, server down, state root mode, VX_TIME_SCALE", async () => {
    using s = await ready();
    configure(s.herdr, { version: "0.7.4" });
    stopServer(s.herdr);
    chmodSync(join(s.home, ".vexillum"), 0o755);
    const r = await vx(["doctor"], { cwd: s.project, env: { ...s.env, VX_TIME_SCALE: "fast" } });
    expect(r.stdout).toContain(
      "[warn] herdr version - 0.7.4 is outside 0.8.2-0.9.x - vx is tested against the real herdr 0.8.2 (0.9.x read from herdr's source, not run), this version may behave differently\n",
    );
    expect(r.stdout).toContain("[warn] herdr server - not running\n");
    expect(r.stdout).toContain("[warn] ~/.vexillum/ - mode 0755, expected 0700\n");
    expect(r.stdout).toContain('[warn] VX_TIME_SCALE - "fast" is not a positive number, using 1\n');
    expect(r.stdout).toEndWith(`Environment ready (optional: ${OPTIONAL} missing; warnings: herdr version, herdr server, VX_TIME_SCALE, ~/.vexillum/).\n`);
    expect(r.code).toBe(0);
    const scaled = await vx(["doctor"], { cwd: s.project, env: { ...s.env, VX_TIME_SCALE: "0.5" } });
    expect(scaled.stdout).toContain("[warn] VX_TIME_SCALE - 0.5 (every built-in duration is scaled; for tests and demos)\n");
  });

  test("herdr missing is a required check: not ready, exit 1", async () => {
    using s = sandbox();
    writeExecutable(join(s.bin, "claude"), "#!/bin/sh\nexit 0\n");
    const r = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(r.stdout).toContain("[missing] herdr - herdr not found in PATH (required, the soldiers' terminal) - install herdr, or use tmux: vx init --backend tmux\n");
    expect(r.stdout).not.toContain("herdr version");
    expect(r.stdout).toContain("[missing] ~/.vexillum/ - does not exist, run 'vx init'\n");
    expect(r.stdout).toContain("[missing] project initialized - run 'vx init'\n");
    expect(r.stdout).toEndWith("\n\nEnvironment not ready, see missing checks above.\n");
    expect(r.code).toBe(1);
  });

  test("outside a git repository no project check follows", async () => {
    using s = sandbox({ git: false });
    const r = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(r.stdout).toContain("[missing] git repository - current directory is not a git repository\n");
    expect(r.stdout).not.toContain("project initialized");
    expect(r.stdout).not.toContain("Stop hook");
    expect(r.code).toBe(1);
  });

  test("the hook cannot find vx with a minimal environment: a warning, never missing", async () => {
    using s = await ready();
    const { unlinkSync } = await import("node:fs");
    unlinkSync(join(s.home, ".local", "bin", "vx"));
    const r = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(r.stdout).toContain(
      "[warn] sentinel Stop hook finds vx - not found with a minimal environment (HOME and PATH=/usr/bin:/bin only), so the commander is never woken; install vx where the hook looks (~/.local/bin, or Homebrew) and run 'vx upgrade' to rewrite the hook\n",
    );
    expect(r.code).toBe(0);
  });

  test("a sentinel started with a PATH that finds no herdr, where this shell's does: a warning naming the fix", async () => {
    using s = await ready();
    // Started as from a pane whose PATH held only the system tools: no herdr.
    const p = Bun.spawn([VX_BIN, "sentinel"], { cwd: s.home, env: { ...s.env, PATH: sandboxPath(), VX_TIME_SCALE: "0.01" }, stdout: "ignore", stderr: "ignore" });
    try {
      const json = join(s.home, ".vexillum", "sentinel.json");
      await waitFor(() => existsSync(json), 5000, "sentinel.json");
      const r = await vx(["doctor"], { cwd: s.project, env: s.env });
      expect(r.stdout).toContain(
        `the running sentinel (pid ${p.pid}) started with a PATH that cannot serve this shell: its PATH has no herdr, which a newer caller's has - a vx dispatch from here starts a successor it gives way to`,
      );
    } finally {
      p.kill("SIGTERM");
      await p.exited;
    }
  });

  test("hook not registered, edited skill, invalid models.json, drifted block", async () => {
    using s = await ready();
    writeFileSync(join(s.project, ".claude/settings.json"), "{}\n");
    writeFileSync(join(s.project, ".claude/skills/vexillum/SKILL.md"), "my own notes\n");
    writeFileSync(join(s.project, ".vexillum/models.json"), "[1]");
    const claude = readFileSync(join(s.project, "CLAUDE.md"), "utf8");
    writeFileSync(join(s.project, "CLAUDE.md"), claude.replace("Vexillum commander", "Vexillum commander (mine)"));
    const r = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(r.stdout).toContain("[warn] sentinel Stop hook - not registered in .claude/settings.json, so the commander is never woken when a soldier finishes; run 'vx upgrade'\n");
    expect(r.stdout).not.toContain("sentinel Stop hook finds vx");
    expect(r.stdout).toContain("[warn] skill vexillum - installed, edited by hand\n");
    expect(r.stdout).toMatch(/\[warn\] models\.json - invalid: .*\n/);
    expect(r.stdout).toContain("[warn] CLAUDE.md vexillum block - drifted\n");
  });

  test("a .claude/settings.json that is a directory is reported and the report goes on", async () => {
    using s = await ready();
    const settings = join(s.project, ".claude/settings.json");
    require("node:fs").rmSync(settings);
    mkdirSync(settings);
    const r = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(r.stdout).toContain(`[warn] sentinel Stop hook - ${settings}: is a directory, not a regular file`);
    expect(r.stdout).toContain("so the commander is never woken when a soldier finishes; make it a readable JSON file, then run 'vx upgrade'\n");
    expect(r.stdout).toMatch(/\[ok\] sentinel - /);
    expect(r.stdout).toMatch(/\nEnvironment ready/);
  });

  test("missing tools say which are required and why, and which are optional", async () => {
    using s = await ready();
    const init = await vx(["init", "--yes", "--harness", "codex"], { cwd: s.project, env: s.env });
    expect(init.code).toBe(0);
    const r = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(r.stdout).toContain("[missing] Codex - codex not found in PATH (required, this project's soldier harness)\n");
    expect(r.stdout).toContain("[optional] Pi - pi not found in PATH (only needed to run Pi soldiers or commanders)\n");
    expect(r.stdout).toMatch(/\nEnvironment not ready, see missing checks above\.\n$/);
    expect(r.code).toBe(1);
    const config = join(s.project, ".vexillum", "config.json");
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), backend: "tmux", harness: "claude" }));
    require("node:fs").rmSync(join(s.bin, "herdr"));
    writeExecutable(join(s.bin, "tmux"), "#!/bin/sh\necho 'tmux 3.3a'\n");
    const tmux = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(tmux.stdout).toContain("[optional] herdr - herdr not found in PATH (only needed for the herdr backend)\n");
    expect(tmux.stdout).toContain("[optional] Codex - codex not found in PATH (only needed to run Codex soldiers or commanders)\n");
    expect(tmux.stdout).toEndWith(`\nEnvironment ready (optional: herdr, ${OPTIONAL} missing).\n`);
    expect(tmux.code).toBe(0);
  });

  test("the first vx on PATH being this one is fine; another one is a warning saying what to do", async () => {
    using s = await ready();
    symlinkSync(VX_BIN, join(s.bin, "vx"));
    const same = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(same.stdout).toContain("[ok] another vx earlier in PATH - none, the first vx on PATH is this one\n");
    const other = join(s.home, "old-bin");
    mkdirSync(other);
    writeExecutable(join(other, "vx"), "#!/bin/sh\necho old vx\n");
    const r = await vx(["doctor"], { cwd: s.project, env: { ...s.env, PATH: `${other}:${s.env.PATH}` } });
    expect(r.stdout).toContain(
      `[warn] another vx earlier in PATH - ${join(other, "vx")} is what 'vx' runs (in your shell and the Stop hook), not this vx (${VX_BIN}); if that is not the one you mean, remove it or put ${dirname(VX_BIN)} before it in PATH\n`,
    );
  });
});

describe("vx doctor: corrupt task and pool files", () => {
  const GOOD = "0000000000000001";
  const stateDir = (s: Sandbox) => join(s.home, ".vexillum", "projects", projectKey(s.project));

  test("each corrupt task file and a corrupt pool get one warning naming the file, and the report finishes", async () => {
    using s = await ready();
    writeTaskFile(s.home, s.project, taskFixture({ id: GOOD }));
    const tasks = join(stateDir(s), "tasks");
    writeFileSync(join(tasks, "000000000000000a.json"), "{ not json");
    writeFileSync(join(tasks, "000000000000000b.json"), JSON.stringify(taskFixture({ id: "000000000000000b", status: "bogus" as never })));
    writeFileSync(join(tasks, "000000000000000c.json"), JSON.stringify(taskFixture({ id: "00000000000000cc" })));
    mkdirSync(join(stateDir(s), "camps"), { recursive: true });
    writeFileSync(join(stateDir(s), "camps", "pool.json"), "[]");
    const before = tree(join(s.home, ".vexillum"));
    const r = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(tree(join(s.home, ".vexillum"))).toEqual(before);
    const effect = "until this file is fixed, vx status fails and the sentinel does not watch this task";
    const lines = r.stdout.split("\n").filter((l) => /^\[warn\] (task file|camp pool)/.test(l));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toStartWith(`[warn] task file 000000000000000a.json - ${join(tasks, "000000000000000a.json")}: invalid JSON (`);
    expect(lines[0]).toEndWith(`; ${effect}`);
    expect(lines[1]).toStartWith(`[warn] task file 000000000000000b.json - ${join(tasks, "000000000000000b.json")}: invalid status: `);
    expect(lines[1]).toEndWith(`- vx leaves it as it is; repair it or move it aside; ${effect}`);
    expect(lines[2]).toBe(
      `[warn] task file 000000000000000c.json - ${join(tasks, "000000000000000c.json")}: its id is "00000000000000cc" but its file is named for 000000000000000c - vx leaves it as it is; repair the id or move the file aside; ${effect}`,
    );
    expect(lines[3]).toBe(
      `[warn] camp pool - ${join(stateDir(s), "camps", "pool.json")}: expected a JSON object; until this file is fixed, vx dispatch, redispatch, land and strike cannot lease or release a camp`,
    );
    expect(r.stdout).not.toContain(GOOD);
    expect(r.stdout).toContain("[ok] pending wakes - 0 waiting\n");
    expect(r.stdout).toEndWith(
      `\n\nEnvironment ready (optional: ${OPTIONAL} missing; warnings: task file 000000000000000a.json, task file 000000000000000b.json, task file 000000000000000c.json, camp pool).\n`,
    );
    expect(r.code).toBe(0);
  });

  test("sound task files and pool add no line", async () => {
    using s = await ready();
    writeTaskFile(s.home, s.project, taskFixture({ id: GOOD }));
    mkdirSync(join(stateDir(s), "camps"), { recursive: true });
    writeFileSync(join(stateDir(s), "camps", "pool.json"), JSON.stringify({ schema_version: 1, slots: [] }));
    const r = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(r.stdout).not.toMatch(/task file|camp pool/);
    expect(r.stdout).toEndWith(`\n\nEnvironment ready (optional: ${OPTIONAL} missing).\n`);
  });
});
