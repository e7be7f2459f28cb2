// init's .worktreeinclude question (STA-10, SCF-01) driven in-process with a terminal and scripted answers.
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/main";
import { testDeps } from "../deps";
import { commitIgnores, sandbox } from "../helpers";

function ignoredEnv(project: string): void {
  commitIgnores(project, ".env*\n");
  writeFileSync(join(project, ".env"), "A=1\n");
}

const QUESTION = "This checkout has ignored .env. Create a .worktreeinclude so each soldier's camp gets a copy? [Y/n]";

describe("vx init: the .worktreeinclude question", () => {
  test("not asked without ignored .env files; asked once they exist, and yes creates the file", async () => {
    using s = sandbox();
    const before = testDeps({ cwd: s.project, env: s.env, tty: true, answers: ["", "", ""] });
    expect(await main(["init"], before)).toBe(0);
    expect(before.text().stderr).not.toContain(".worktreeinclude");
    ignoredEnv(s.project);
    const d = testDeps({ cwd: s.project, env: s.env, tty: true, answers: ["y", "y", ""] });
    expect(await main(["init"], d)).toBe(0);
    expect(d.text().stderr).toContain(QUESTION);
    expect(d.text().stdout).toContain("created .worktreeinclude\n");
  });

  test("no leaves it out", async () => {
    using s = sandbox();
    ignoredEnv(s.project);
    const d = testDeps({ cwd: s.project, env: s.env, tty: true, answers: ["", "", "n", ""] });
    expect(await main(["init"], d)).toBe(0);
    expect(existsSync(join(s.project, ".worktreeinclude"))).toBe(false);
  });
});
