// STA-10's scaffold side: `vx init --yes` creates a .worktreeinclude for ignored .env files, and
// doctor checks the file and each camp_setup program.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commitIgnores, sandbox, vx, writeExecutable } from "../helpers";

function ignoredEnv(project: string): void {
  commitIgnores(project, ".env*\nnode_modules/\n");
  writeFileSync(join(project, ".env"), "A=1\n");
  mkdirSync(join(project, "web"));
  writeFileSync(join(project, "web", ".env.local"), "B=2\n");
  mkdirSync(join(project, "node_modules", "pkg"), { recursive: true });
  writeFileSync(join(project, "node_modules", "pkg", ".env"), "C=3\n");
}

const doctorLines = (stdout: string) => stdout.split("\n").filter((l) => /^\[\w+\] (\.worktreeinclude|camp_setup)/.test(l));

describe("vx init: .worktreeinclude", () => {
  test("--yes creates one naming the ignored .env files (not those in ignored directories), keeping camp_setup", async () => {
    using s = sandbox();
    expect((await vx(["init", "--yes"], { cwd: s.project, env: s.env })).code).toBe(0);
    expect(existsSync(join(s.project, ".worktreeinclude"))).toBe(false);
    const config = join(s.project, ".vexillum", "config.json");
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), camp_setup: [["bun", "install"]], camp_setup_timeout: 90 }));
    ignoredEnv(s.project);
    const r = await vx(["init", "--yes"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("create .worktreeinclude (copies your ignored .env files into each camp)");
    expect(r.stdout).toContain("created .worktreeinclude\n");
    const text = readFileSync(join(s.project, ".worktreeinclude"), "utf8");
    expect(text.split("\n").filter((l) => l && !l.startsWith("#"))).toEqual(["/.env", "/web/.env.local"]);
    expect(JSON.parse(readFileSync(config, "utf8"))).toMatchObject({ camp_setup: [["bun", "install"]], camp_setup_timeout: 90 });
    // Run again: an existing file is the general's, never offered again or touched.
    writeFileSync(join(s.project, ".worktreeinclude"), "/.env\n");
    const again = await vx(["init", "--yes"], { cwd: s.project, env: s.env });
    expect(again.stdout).not.toContain(".worktreeinclude");
    expect(readFileSync(join(s.project, ".worktreeinclude"), "utf8")).toBe("/.env\n");
  });
});

describe("vx doctor: camp setup", () => {
  test("reports what .worktreeinclude copies and each camp_setup program on PATH", async () => {
    using s = sandbox();
    ignoredEnv(s.project);
    expect((await vx(["init", "--yes"], { cwd: s.project, env: s.env })).code).toBe(0);
    const path = join(s.project, ".vexillum", "config.json");
    const config = JSON.parse(readFileSync(path, "utf8"));
    writeExecutable(join(s.bin, "setup-deps"), "#!/bin/sh\n");
    writeFileSync(path, JSON.stringify({ ...config, camp_setup: [["setup-deps"], ["./scripts/local.sh"]] }));
    let r = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(doctorLines(r.stdout)).toEqual(["[ok] .worktreeinclude - 2 ignored file(s) to copy into each camp", "[ok] camp_setup - 2 command(s), each program found (limit 600s each)"]);

    writeFileSync(path, JSON.stringify({ ...config, camp_setup: [["setup-deps"], ["no-such-tool", "install"]], camp_setup_timeout: 30 }));
    writeFileSync(join(s.project, ".worktreeinclude"), "/.env\x00\n");
    r = await vx(["doctor"], { cwd: s.project, env: s.env });
    expect(doctorLines(r.stdout)).toEqual([
      `[warn] .worktreeinclude - ${join(s.project, ".worktreeinclude")} is not plain text (a NUL byte or invalid UTF-8) - make it a text file of gitignore patterns, one a line; every dispatch fails until it is fixed`,
      "[warn] camp_setup - no-such-tool not found in PATH (command 2: no-such-tool install); every dispatch fails until it is installed",
    ]);
  });
});
