// What `vx init --commander <h>` writes for each commander, and what doctor says of it (CMDR-07,
// CMDR-08a, CMDR-09, DOC-08).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OPENCODE_PLUGIN } from "../../src/harnesses/opencode-plugin";
import { installFakeHerdr } from "../fakes/herdr-control";
import { git, sandbox, vx, writeExecutable } from "../helpers";

const read = (p: string) => readFileSync(p, "utf8");

function withTools(s: ReturnType<typeof sandbox>) {
  Object.assign(s.env, installFakeHerdr(s.bin));
  for (const exe of ["claude", "pi", "opencode", "codex", "gemini"]) writeExecutable(join(s.bin, exe), "#!/bin/sh\nexit 0\n");
  return s;
}

describe("vx init --commander opencode", () => {
  test("writes the wake plugin and lists it in opencode.json, keeping the user's keys and entries", async () => {
    using s = withTools(sandbox());
    writeFileSync(join(s.project, "opencode.json"), `${JSON.stringify({ model: "x/y", plugin: ["other-plugin"] }, null, 2)}\n`);
    git(s.project, "add", "opencode.json");
    git(s.project, "commit", "-q", "-m", "user config");
    const r = await vx(["init", "--yes", "--commander", "opencode"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(read(join(s.project, ".vexillum/opencode-wake.ts"))).toBe(OPENCODE_PLUGIN);
    expect(JSON.parse(read(join(s.project, "opencode.json")))).toEqual({
      $schema: "https://opencode.ai/config.json",
      model: "x/y",
      plugin: ["other-plugin", "./.vexillum/opencode-wake.ts"],
    });
    expect(Object.keys(JSON.parse(read(join(s.project, "opencode.json"))))[0]).toBe("$schema");
    expect(existsSync(join(s.project, ".opencode"))).toBe(false);
    const again = await vx(["init", "--yes", "--commander", "opencode"], { cwd: s.project, env: s.env });
    expect(again.stderr).toContain("nothing to change, every file is current");
    const doctor = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(doctor.stdout).toContain("[ok] OpenCode wake plugin - current\n");
    expect(doctor.stdout).toContain("[ok] OpenCode loads the wake plugin - listed in opencode.json\n");
  });

  test("an opencode.jsonc is left to the user, with a note saying what to add; doctor warns", async () => {
    using s = withTools(sandbox());
    writeFileSync(join(s.project, "opencode.jsonc"), "{ // mine\n}\n");
    const r = await vx(["init", "--yes", "--commander", "opencode"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(existsSync(join(s.project, "opencode.json"))).toBe(false);
    expect(r.stderr).toContain('opencode.jsonc: add "./.vexillum/opencode-wake.ts" to its "plugin" list yourself');
    const doctor = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(doctor.stdout).toContain('[warn] OpenCode loads the wake plugin - add "./.vexillum/opencode-wake.ts" to the "plugin" list of opencode.json');
  });
});

describe("vx init --commander gemini", () => {
  test("names the commander block's files in .gemini/settings.json, keeping the user's keys; doctor checks it", async () => {
    using s = withTools(sandbox());
    mkdirSync(join(s.project, ".gemini"));
    writeFileSync(join(s.project, ".gemini/settings.json"), `${JSON.stringify({ ui: { theme: "x" }, context: { fileName: "NOTES.md" } }, null, 2)}\n`);
    const r = await vx(["init", "--yes", "--commander", "gemini"], { cwd: s.project, env: s.env });
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(JSON.parse(read(join(s.project, ".vexillum/config.json"))).commander).toBe("gemini");
    expect(JSON.parse(read(join(s.project, ".gemini/settings.json")))).toEqual({ ui: { theme: "x" }, context: { fileName: ["NOTES.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"] } });
    const again = await vx(["init", "--yes", "--commander", "gemini"], { cwd: s.project, env: s.env });
    expect(again.stderr).toContain("nothing to change, every file is current");
    const doctor = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(doctor.stdout).toContain("[ok] Gemini CLI reads the commander block - listed in .gemini/settings.json\n");
    writeFileSync(join(s.project, ".gemini/settings.json"), "{}\n");
    const edited = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(edited.stdout).toContain('[warn] Gemini CLI reads the commander block - add "AGENTS.md", "CLAUDE.md", "GEMINI.md" to "context.fileName" in .gemini/settings.json');
    rmSync(join(s.bin, "gemini"));
    const without = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(without.stdout).toContain("[missing] Gemini CLI - gemini not found in PATH (required, this project's commander harness)\n");
    expect(without.code).toBe(1);
  });

  test("an invalid .gemini/settings.json is left untouched and said", async () => {
    using s = withTools(sandbox());
    mkdirSync(join(s.project, ".gemini"));
    writeFileSync(join(s.project, ".gemini/settings.json"), "[]\n");
    const r = await vx(["init", "--yes", "--commander", "gemini"], { cwd: s.project, env: s.env });
    expect(r.stderr).toContain(".gemini/settings.json: .gemini/settings.json must hold a JSON object at the top level, leaving it untouched");
    expect(read(join(s.project, ".gemini/settings.json"))).toBe("[]\n");
  });
});

describe("vx init --commander codex", () => {
  test("adds nothing Codex-specific to the project; doctor says how Codex is woken and requires codex", async () => {
    using s = withTools(sandbox());
    const r = await vx(["init", "--yes", "--commander", "codex"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(read(join(s.project, ".vexillum/config.json"))).commander).toBe("codex");
    for (const p of [".codex", ".opencode", "opencode.json", ".pi"]) expect(existsSync(join(s.project, p))).toBe(false);
    const doctor = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(doctor.stdout).toContain("[ok] Codex commander - woken by the sentinel with 'codex queue'");
    rmSync(join(s.bin, "codex"));
    const without = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(without.stdout).toContain("[missing] Codex - codex not found in PATH (required, this project's commander harness)\n");
    expect(without.code).toBe(1);
  });
});

describe("Codex's default sandbox (issue 15 item 8)", () => {
  const full = (config: string) => `set sandbox_mode = "danger-full-access" in ${config} (or start codex with --sandbox danger-full-access)`;
  const why =
    "Codex's default sandbox keeps .git read-only, turns the network off (herdr's and tmux's sockets too) and ends every process a command starts with the command, so vx dispatch refuses under it";

  test("vx init --commander codex says what to configure; doctor warns until Codex's config.toml sets one that works", async () => {
    using s = withTools(sandbox());
    const r = await vx(["init", "--yes", "--commander", "codex"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`vx: Codex commander: ${why} - ${full("~/.codex/config.toml")}; 'vx doctor' names the writable_roots that keep the sandbox instead\n`);
    const config = join(s.home, ".codex", "config.toml");
    const gitDir = join(s.project, ".git");
    const root = join(s.home, ".vexillum");
    const roots = `writable_roots = ["${gitDir}", "${root}"]`;
    const advice = `${full(config)}, or keep the sandbox with ${roots} and network_access = true under [sandbox_workspace_write] there and 'vx sentinel' started outside Codex`;
    const none = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(none.stdout).toContain(`[warn] Codex sandbox - ${config} sets no sandbox_mode: ${why} - ${advice}\n`);
    mkdirSync(join(s.home, ".codex"));
    writeFileSync(config, 'model = "x"\nsandbox_mode = "workspace-write"\n');
    const ws = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(ws.stdout).toContain(`[warn] Codex sandbox - ${config} sets sandbox_mode = "workspace-write": ${why} - ${advice}\n`);
    // The roots without the network are not enough: herdr and tmux stay out of reach.
    writeFileSync(config, `sandbox_mode = "workspace-write"\n[sandbox_workspace_write]\n${roots}\n`);
    expect((await vx(["doctor"], { cwd: s.project, env: s.env })).stdout).toContain(`[warn] Codex sandbox - ${config} sets sandbox_mode = "workspace-write"`);
    writeFileSync(config, `[sandbox_workspace_write]\n${roots}\nnetwork_access = true\n`);
    expect((await vx(["doctor"], { cwd: s.project, env: s.env })).stdout).toContain(
      `[ok] Codex sandbox - ${config} keeps the sandbox with ${gitDir} and ${root} writable and the network on: start 'vx sentinel' outside Codex, none is started from inside its sandbox\n`,
    );
    writeFileSync(config, 'sandbox_mode = "danger-full-access"\n\n[tui]\nx = true\n');
    const fullAccess = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(fullAccess.stdout).toContain(`[ok] Codex sandbox - sandbox_mode = "danger-full-access" in ${config}\n`);
    // CODEX_HOME moves the file, as it does for Codex.
    const other = join(s.home, "codex-home");
    const moved = await vx(["doctor"], { cwd: s.project, env: { ...s.env, CODEX_HOME: other } });
    expect(moved.stdout).toContain(`[warn] Codex sandbox - ${join(other, "config.toml")} sets no sandbox_mode`);
  });

  test("another commander gets neither the note nor the line", async () => {
    using s = withTools(sandbox());
    const r = await vx(["init", "--yes", "--commander", "claude"], { cwd: s.project, env: s.env });
    expect(r.stderr).not.toContain("Codex commander");
    expect((await vx(["doctor"], { cwd: s.project, env: s.env })).stdout).not.toContain("Codex sandbox");
  });
});

describe("doctor on a Pi commander", () => {
  test("says to start Pi at the project root, naming it when run from a subdirectory", async () => {
    using s = withTools(sandbox());
    expect((await vx(["init", "--yes", "--commander", "pi"], { cwd: s.project, env: s.env })).code).toBe(0);
    const atRoot = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(atRoot.stdout).toContain("[ok] Pi wake extension - current (start Pi here, at the project root)\n");
    mkdirSync(join(s.project, "src"));
    const below = await vx(["doctor"], { cwd: join(s.project, "src"), env: s.env });
    expect(below.stdout).toContain(`[ok] Pi wake extension - current (start Pi at the project root, ${s.project}: it loads .pi/ only from its working directory)\n`);
  });
});
