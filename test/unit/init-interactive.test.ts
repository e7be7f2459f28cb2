// init's questions (SCF-01, SCF-03, SCF-06) driven in-process with a terminal and scripted answers.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/main";
import { testDeps } from "../deps";
import { git, sandbox } from "../helpers";

describe("vx init questions", () => {
  test("accepting every default (empty answers)", async () => {
    using s = sandbox();
    const d = testDeps({ cwd: s.project, env: s.env, tty: true, answers: ["", "", ""] });
    expect(await main(["init"], d)).toBe(0);
    const { stderr, stdout } = d.text();
    expect(stderr).toContain("Put the vexillum commander block in CLAUDE.md instead? [Y/n]");
    expect(stderr).toContain("Install the vexillum skill? [Y/n]");
    expect(stderr).toContain("Continue? [Y/n]");
    expect(stdout).toContain("created CLAUDE.md\n");
    expect(existsSync(join(s.project, ".claude/skills/vexillum/SKILL.md"))).toBe(true);
  });

  test("answering no to CLAUDE.md puts the block in a new AGENTS.md; no to skills skips them", async () => {
    using s = sandbox();
    const d = testDeps({ cwd: s.project, env: s.env, tty: true, answers: ["n", "no", "y"] });
    expect(await main(["init"], d)).toBe(0);
    expect(readFileSync(join(s.project, "AGENTS.md"), "utf8")).toContain("<!-- BEGIN VEXILLUM");
    expect(readFileSync(join(s.project, "CLAUDE.md"), "utf8")).toBe("@AGENTS.md\n");
    expect(existsSync(join(s.project, ".claude/skills"))).toBe(false);
  });

  test("an existing CLAUDE.md is edited only after the second question", async () => {
    using s = sandbox();
    writeFileSync(join(s.project, "AGENTS.md"), "# Agents\n");
    writeFileSync(join(s.project, "CLAUDE.md"), "# Claude notes\n");
    const d = testDeps({ cwd: s.project, env: s.env, tty: true, answers: ["y", "n", "y"] });
    expect(await main(["init"], d)).toBe(0);
    expect(d.text().stderr).toContain("Add an @AGENTS.md line to it");
    expect(readFileSync(join(s.project, "CLAUDE.md"), "utf8")).toBe("# Claude notes\n");
  });

  test.each([["maybe"], [undefined]])("an unusable answer (%p) stops with nothing changed", async (answer) => {
    using s = sandbox();
    const d = testDeps({ cwd: s.project, env: s.env, tty: true, answers: [answer] });
    expect(await main(["init"], d)).toBe(1);
    expect(d.text().stderr).toEndWith("vx: no answer (input closed or not understood) - nothing further was changed; re-run with --yes to accept without questions\n");
    expect(git(s.project, "status", "--porcelain")).toBe("");
  });

  test("declining the plan changes nothing", async () => {
    using s = sandbox();
    const d = testDeps({ cwd: s.project, env: s.env, tty: true, answers: ["", "", "n"] });
    expect(await main(["init"], d)).toBe(1);
    expect(git(s.project, "status", "--porcelain")).toBe("");
  });
});
