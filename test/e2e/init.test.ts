// `vx init` end to end with the compiled binary (section 9).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOOK_COMMAND } from "../../src/scaffold/hook";
import { projectKey } from "../../src/state/paths";
import { git, sandbox, vx } from "../helpers";

const read = (p: string) => readFileSync(p, "utf8");

function snapshot(dir: string, files: string[]): Record<string, string | null> {
  return Object.fromEntries(files.map((f) => [f, existsSync(join(dir, f)) ? read(join(dir, f)) : null]));
}

const MANAGED = ["CLAUDE.md", "AGENTS.md", ".claude/settings.json", ".vexillum/config.json", ".vexillum/models.json", ".vexillum/.gitignore", ".claude/skills/vexillum/SKILL.md"];

describe("vx init", () => {
  test("without a terminal and without --yes: prints the plan, changes nothing, exit 1", async () => {
    using s = sandbox();
    const r = await vx(["init"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("create .claude/settings.json");
    expect(r.stderr).toEndWith("vx: not running in a terminal, so nothing was changed - re-run with --yes to accept the plan above\n");
    expect(r.stdout).toBe("");
    expect(git(s.project, "status", "--porcelain")).toBe("");
    expect(existsSync(join(s.home, ".vexillum"))).toBe(false);
  });

  test("--yes creates every file, the state dir 0700, and the exact Stop hook entry", async () => {
    using s = sandbox();
    writeFileSync(join(s.bin, "herdr"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const r = await vx(["init", "--yes"], { cwd: s.project, env: s.env });
    expect(r.stderr).not.toContain("vx: ");
    expect(r.stderr).toEndWith(
      "\nnext: commit what vx init wrote (each soldier's camp starts from your last commit), then start claude here and ask it to dispatch a soldier; 'vx doctor' checks this machine, 'vx demo' shows the whole loop without a harness\n",
    );
    expect(r.code).toBe(0);
    for (const f of MANAGED.filter((f) => f !== "AGENTS.md")) expect(r.stdout).toContain(`created ${f}\n`);
    const settings = JSON.parse(read(join(s.project, ".claude/settings.json")));
    expect(settings.hooks.Stop).toEqual([{ hooks: [{ type: "command", command: HOOK_COMMAND, asyncRewake: true, timeout: 87000 }] }]);
    expect(read(join(s.project, ".claude/settings.json"))).toContain('"asyncRewake": true,\n');
    const config = JSON.parse(read(join(s.project, ".vexillum/config.json")));
    expect(config).toMatchObject({ version: 1, commander: "claude", backend: "herdr", harness: "claude", block_file: "CLAUDE.md" });
    expect(read(join(s.project, ".vexillum/models.json"))).toBe('{\n  "profiles": {}\n}\n');
    expect(read(join(s.project, ".vexillum/.gitignore"))).toBe("forum/\n");
    expect(read(join(s.project, "CLAUDE.md"))).toMatch(/<!-- BEGIN VEXILLUM v:1 hash:[0-9a-f]{8} -->/);
    const root = join(s.home, ".vexillum");
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, "projects", projectKey(s.project))).mode & 0o777).toBe(0o700);
  });

  test("a second run is byte-identical and reports unchanged", async () => {
    using s = sandbox();
    await vx(["init", "--yes"], { cwd: s.project, env: s.env });
    const before = snapshot(s.project, MANAGED);
    const r = await vx(["init", "--yes"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("created");
    expect(r.stdout).not.toContain("updated");
    expect(r.stdout).toContain("unchanged .vexillum/config.json\n");
    expect(snapshot(s.project, MANAGED)).toEqual(before);
  });

  test("merges into settings.json: user hook untouched, old vexillum entry replaced in place", async () => {
    using s = sandbox();
    mkdirSync(join(s.project, ".claude"));
    const user = { type: "command", command: "echo my-own-hook" };
    const original = {
      model: "opus",
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "audit" }] }],
        Stop: [{ hooks: [user, { type: "command", command: "vexillum sentinel drain" }] }],
      },
      zzz: [1, 2, 3],
    };
    writeFileSync(join(s.project, ".claude/settings.json"), JSON.stringify(original));
    const r = await vx(["init", "--yes"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("updated .claude/settings.json\n");
    const after = JSON.parse(read(join(s.project, ".claude/settings.json")));
    expect(Object.keys(after)).toEqual(["model", "hooks", "zzz"]);
    expect(after.hooks.PreToolUse).toEqual(original.hooks.PreToolUse);
    expect(after.hooks.Stop).toEqual([{ hooks: [user, { type: "command", command: HOOK_COMMAND, asyncRewake: true, timeout: 87000 }] }]);
  });

  test("invalid settings.json is left untouched; the rest is done; exit 1", async () => {
    using s = sandbox();
    mkdirSync(join(s.project, ".claude"));
    writeFileSync(join(s.project, ".claude/settings.json"), "{ broken");
    const r = await vx(["init", "--yes"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("vx: .claude/settings.json has invalid JSON, leaving it untouched\n");
    expect(read(join(s.project, ".claude/settings.json"))).toBe("{ broken");
    expect(existsSync(join(s.project, ".vexillum/config.json"))).toBe(true);
    expect(r.stdout).toContain("created .vexillum/config.json\n");
  });

  test("an existing AGENTS.md holds the block and CLAUDE.md imports it", async () => {
    using s = sandbox();
    writeFileSync(join(s.project, "AGENTS.md"), "# Agents\n\nBuild with make.\n");
    const r = await vx(["init", "--yes"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    const agents = read(join(s.project, "AGENTS.md"));
    expect(agents).toStartWith("# Agents\n\nBuild with make.\n\n<!-- BEGIN VEXILLUM");
    expect(read(join(s.project, "CLAUDE.md"))).toBe("@AGENTS.md\n");
  });

  test("--no-skills, --commander pi and --lang es are honoured", async () => {
    using s = sandbox();
    const r = await vx(["init", "-y", "--no-skills", "--commander", "pi", "--lang", "es"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(existsSync(join(s.project, ".claude/skills"))).toBe(false);
    expect(existsSync(join(s.project, ".pi/extensions/vexillum-wake.ts"))).toBe(true);
    const pi = JSON.parse(read(join(s.project, ".pi/settings.json")));
    expect(pi.skills).toContain("../.claude/skills");
    expect(JSON.parse(read(join(s.project, ".vexillum/config.json"))).block_lang).toBe("es");
  });

  test("writes through a symlinked CLAUDE.md, keeps .gitignore lines, leaves an edited Pi extension", async () => {
    using s = sandbox();
    writeFileSync(join(s.project, "AGENTS.md"), "# Agents\n");
    require("node:fs").symlinkSync("AGENTS.md", join(s.project, "CLAUDE.md"));
    mkdirSync(join(s.project, ".vexillum"));
    writeFileSync(join(s.project, ".vexillum/.gitignore"), "local.json\n");
    expect((await vx(["init", "--yes", "--commander", "pi"], { cwd: s.project, env: s.env })).code).toBe(0);
    expect(require("node:fs").lstatSync(join(s.project, "CLAUDE.md")).isSymbolicLink()).toBe(true);
    expect(read(join(s.project, "AGENTS.md"))).toContain("<!-- BEGIN VEXILLUM");
    expect(read(join(s.project, ".vexillum/.gitignore"))).toBe("local.json\nforum/\n");
    const ext = join(s.project, ".pi/extensions/vexillum-wake.ts");
    writeFileSync(ext, `${read(ext)}// mine\n`);
    const again = await vx(["init", "--yes", "--commander", "pi"], { cwd: s.project, env: s.env });
    expect(again.code).toBe(0);
    expect(read(ext)).toEndWith("// mine\n");
    expect(again.stderr).toContain(".pi/extensions/vexillum-wake.ts: edited by hand, left as it is");
    expect(require("node:fs").statSync(join(s.project, ".vexillum")).mode & 0o777).toBe(0o755);
  });

  describe("the backend of a new project without --backend (CMD-INIT-01)", () => {
    const backendOf = (s: { project: string }) => JSON.parse(readFileSync(join(s.project, ".vexillum", "config.json"), "utf8")).backend;
    test("only tmux installed: tmux, and init says so", async () => {
      using s = sandbox();
      const r = await vx(["init", "--yes"], { cwd: s.project, env: s.env });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("vx init: herdr is not installed here, so soldiers will run in tmux (--backend picks another)\n");
      expect(backendOf(s)).toBe("tmux");
    });
    test("herdr on PATH, or a herdr pane: herdr, without a word", async () => {
      using s = sandbox();
      writeFileSync(join(s.bin, "herdr"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
      const r = await vx(["init", "--yes"], { cwd: s.project, env: s.env });
      expect(r.stderr).not.toContain("not installed");
      expect(backendOf(s)).toBe("herdr");
      using t = sandbox();
      await vx(["init", "--yes"], { cwd: t.project, env: { ...t.env, HERDR_WORKSPACE_ID: "w1" } });
      expect(backendOf(t)).toBe("herdr");
    });
    test("a project's recorded backend is kept", async () => {
      using s = sandbox();
      writeFileSync(join(s.bin, "herdr"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
      await vx(["init", "--yes"], { cwd: s.project, env: s.env });
      rmSync(join(s.bin, "herdr"));
      const again = await vx(["init", "--yes"], { cwd: s.project, env: s.env });
      expect(again.stderr).not.toContain("not installed");
      expect(backendOf(s)).toBe("herdr");
    });
  });

  test("--backend tmux is stored in config.json", async () => {
    using s = sandbox();
    const r = await vx(["init", "--yes", "--backend", "tmux"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(s.project, ".vexillum", "config.json"), "utf8"))).toMatchObject({ backend: "tmux" });
  });

  test("outside a git repository", async () => {
    using s = sandbox({ git: false });
    const r = await vx(["init", "--yes"], { cwd: s.project, env: s.env });
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: current directory is not a git repository - run vx from inside your project's git checkout\n" });
  });

  test("inside the state root (a camp) it refuses", async () => {
    using s = sandbox();
    const camp = join(s.home, ".vexillum", "projects", "p-12345678", "camps", "1", "project");
    mkdirSync(camp, { recursive: true });
    git(camp, "init", "-q");
    const r = await vx(["init", "--yes"], { cwd: camp, env: s.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`vx: running from inside ${camp}, which looks like a vexillum-managed camp, not a project root - cd back to the real project and try again\n`);
  });

  const asRoot = process.getuid?.() === 0 && Bun.which("setpriv") !== null;
  test.skipIf(!asRoot)("an unwritable state root fails before any project file is written (run as another user)", async () => {
    using s = sandbox();
    const { chmodSync, chownSync } = await import("node:fs");
    mkdirSync(join(s.home, ".vexillum"), { mode: 0o500 });
    for (const d of [s.home, s.project, join(s.project, ".git")]) chownSync(d, 65534, 65534);
    Bun.spawnSync(["chown", "-R", "65534:65534", s.project]);
    chmodSync(join(s.home, ".vexillum"), 0o555);
    chmodSync(join(s.project, ".."), 0o755);
    const proc = Bun.spawn(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", join(import.meta.dir, "../../dist/vx"), "init", "--yes"], {
      cwd: s.project,
      env: { ...s.env, GIT_CONFIG_GLOBAL: "/dev/null" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text(), await proc.exited];
    expect(code).toBe(1);
    expect(stderr).toContain(`vx: cannot write the state directory ${join(s.home, ".vexillum")}`);
    expect(stdout).toBe("");
    expect(existsSync(join(s.project, ".vexillum"))).toBe(false);
  });
});
