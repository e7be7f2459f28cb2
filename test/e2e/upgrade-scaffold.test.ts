// `vx upgrade --scaffold-only` (CMD-UPGRADE-02, SCF-08): init's consent rules, hand edits kept
// unless --force (backed up first), a malformed block repaired only once confirmed.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOOK_COMMAND } from "../../src/scaffold/hook";
import { git, sandbox, vx } from "../helpers";
import { initProject } from "../init-project";

const read = (p: string) => readFileSync(p, "utf8");

const EDITED_SKILL = "Skill vexillum: edited by hand, left as it is; rerun with --force to overwrite it (a backup is saved first)";

async function initialized() {
  const s = sandbox();
  await initProject(s.project, s.env);
  const up = (...args: string[]) => vx(["upgrade", "--scaffold-only", ...args], { cwd: s.project, env: s.env });
  return { s, up, path: (p: string) => join(s.project, p) };
}

/** The block in CLAUDE.md with one of its lines changed by hand. */
function editBlock(path: string): string {
  const edited = read(path).replace("## Vexillum commander", "## Vexillum commander (our rules)");
  if (edited === read(path)) throw new Error("the block has no heading to edit");
  writeFileSync(path, edited);
  return edited;
}

describe("vx upgrade --scaffold-only", () => {
  test("refreshes a stale hook and a missing models.json; without a terminal or --yes it changes nothing", async () => {
    const { s, up, path } = await initialized();
    using _ = s;
    writeFileSync(path(".claude/settings.json"), '{\n  "hooks": {}\n}\n');
    rmSync(path(".vexillum/models.json"));
    const refused = await up();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`vx upgrade will refresh ${s.project}:\n  update .claude/settings.json (the sentinel Stop hook)\n  create .vexillum/models.json`);
    expect(refused.stderr).toEndWith("vx: not running in a terminal, so nothing was changed - re-run with --yes to accept the plan above\n");
    expect(existsSync(path(".vexillum/models.json"))).toBe(false);
    const r = await up("--yes");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("updated .claude/settings.json\n");
    expect(r.stdout).toContain("created .vexillum/models.json\n");
    expect(read(path(".claude/settings.json"))).toContain(JSON.stringify(HOOK_COMMAND));
    expect((await up("--yes")).stdout).not.toMatch(/^(created|updated) (?!\.vexillum\/config\.json)/m);
  });

  test("seed 000's one-hour hook entry: doctor flags it, vx upgrade makes it day-long, a user hook kept (AWT-05)", async () => {
    const { s, up, path } = await initialized();
    using _ = s;
    const user = { type: "command", command: "./scripts/notify-done.sh" };
    const old = { type: "command", command: HOOK_COMMAND, asyncRewake: true, timeout: 3600 };
    writeFileSync(path(".claude/settings.json"), `${JSON.stringify({ hooks: { Stop: [{ hooks: [user, old] }] } }, null, 2)}\n`);
    const before = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(before.stdout).toContain("[warn] sentinel Stop hook - registered but out of date; run 'vx upgrade'");
    const r = await up("--yes");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("updated .claude/settings.json\n");
    const settings = JSON.parse(read(path(".claude/settings.json")));
    expect(settings.hooks.Stop).toEqual([{ hooks: [user, { ...old, timeout: 87000 }] }]);
    const after = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(after.stdout).not.toContain("out of date");
  });

  test("an edited block is left alone with a diff; --force backs it up, then writes the current one", async () => {
    const { s, up, path } = await initialized();
    using _ = s;
    const edited = editBlock(path("CLAUDE.md"));
    const r = await up("--yes");
    expect(r.code).toBe(0);
    expect(read(path("CLAUDE.md"))).toBe(edited);
    expect(r.stderr).toContain("vx: CLAUDE.md: the vexillum block was edited by hand, left as it is; rerun with --force to overwrite it (a backup is saved first)\n");
    expect(r.stderr).toContain("--- CLAUDE.md (your block)\n+++ the current vexillum block\n");
    expect(r.stderr).toContain("- ## Vexillum commander (our rules)\n+ ## Vexillum commander\n");
    const forced = await up("--yes", "--force");
    expect(forced.code).toBe(0);
    expect(read(path(".vexillum/backups/CLAUDE.md"))).toBe(edited);
    expect(read(path("CLAUDE.md"))).not.toContain("(our rules)");
    expect(forced.stdout).toContain("created .vexillum/backups/CLAUDE.md\nupdated CLAUDE.md\n");
  });

  test("an edited skill is kept with the exact line; --force backs it up first; a removed skill stays removed", async () => {
    const { s, up, path } = await initialized();
    using _ = s;
    const skill = path(".claude/skills/vexillum/SKILL.md");
    writeFileSync(skill, `${read(skill)}\nOur own note.\n`);
    const mine = read(skill);
    const r = await up("--yes");
    expect(r.stderr).toContain(`vx: ${EDITED_SKILL}\n`);
    expect(read(skill)).toBe(mine);
    const forced = await up("--yes", "--force");
    expect(forced.code).toBe(0);
    expect(read(path(".vexillum/backups/skills/vexillum/SKILL.md"))).toBe(mine);
    expect(read(skill)).not.toContain("Our own note.");
    rmSync(path(".claude/skills"), { recursive: true });
    await up("--yes");
    expect(existsSync(path(".claude/skills"))).toBe(false);
    await up("--yes", "--skills");
    expect(existsSync(skill)).toBe(true);
  });

  test("a malformed block is repaired only once confirmed (--yes here), after a backup to .vexillum/<file>.backup", async () => {
    const { s, up, path } = await initialized();
    using _ = s;
    const broken = `${read(path("CLAUDE.md"))}<!-- END VEXILLUM -->\n`;
    writeFileSync(path("CLAUDE.md"), broken);
    // Without a terminal or --yes, nothing (the questions on a terminal: test/unit/upgrade.test.ts).
    expect((await up()).code).toBe(1);
    expect(read(path("CLAUDE.md"))).toBe(broken);
    const r = await up("--yes");
    expect(r.code).toBe(0);
    expect(read(path(".vexillum/CLAUDE.md.backup"))).toBe(broken);
    expect(r.stdout).toContain("created .vexillum/CLAUDE.md.backup\nupdated CLAUDE.md\n");
    expect(read(path("CLAUDE.md")).match(/<!-- END VEXILLUM -->/g)).toHaveLength(1);
  });

  test("refusals: not initialized, inside a camp, --check with --scaffold-only, an unknown language", async () => {
    using s = sandbox();
    expect(await vx(["upgrade", "--scaffold-only", "--yes"], { cwd: s.project, env: s.env })).toEqual({ code: 1, stdout: "", stderr: "vx: project not initialized, run 'vx init' first\n" });
    const camp = join(s.home, ".vexillum", "projects", "p-12345678", "camps", "1", "project");
    mkdirSync(camp, { recursive: true });
    git(camp, "init", "-q");
    for (const args of [
      ["upgrade", "--scaffold-only"],
      ["upgrade", "--yes"],
    ]) {
      const r = await vx(args, { cwd: camp, env: s.env });
      expect(r.stderr).toStartWith(`vx: running from inside ${camp}, which looks like a vexillum-managed camp`);
    }
    const both = await vx(["upgrade", "--check", "--scaffold-only"], { cwd: s.project, env: s.env });
    expect(both.code).toBe(64);
    expect(both.stderr).toStartWith("vx: --check and --scaffold-only cannot be combined\n");
    const lang = await vx(["upgrade", "--lang", "fr"], { cwd: s.project, env: s.env });
    expect(lang.code).toBe(64);
    expect(lang.stderr).toStartWith('vx: unknown language "fr", expected one of en, es\n');
  });
});
