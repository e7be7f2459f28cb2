// The CLI shell end to end: help, version, unknown commands and flags, HOME unset (ENV-01, CLI-01..03).
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import pkg from "../../package.json";
import { sandbox, vx } from "../helpers";

describe("vx shell", () => {
  test.each([["--version"], ["-v"]])("%s prints vx <version>", async (flag) => {
    using s = sandbox();
    const r = await vx([flag], { cwd: s.project, env: s.env });
    expect(r).toEqual({ code: 0, stdout: `vx ${pkg.version}\n`, stderr: "" });
  });

  test.each([[[]], [["-h"]], [["--help"]]])("general usage %p lists every command", async (argv) => {
    using s = sandbox();
    const r = await vx(argv, { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    for (const name of ["init", "doctor", "status"]) expect(r.stdout).toMatch(new RegExp(`^  ${name} `, "m"));
    expect(r.stdout).toContain("Report the troop: every mission and scout in the current project");
  });

  test("command help exits 0 with its usage", async () => {
    using s = sandbox();
    const r = await vx(["status", "--help"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith("Usage: vx status [--json] [--all]\n");
  });

  test("vx help is --help; vx help <command> is that command's usage; plumbing is listed apart", async () => {
    using s = sandbox();
    const general = await vx(["help"], { cwd: s.project, env: s.env });
    expect(general).toEqual(await vx(["--help"], { cwd: s.project, env: s.env }));
    const [people, plumbing] = general.stdout.split("Plumbing (run by harness hooks and the sentinel, not by hand):\n");
    expect(people).toMatch(/^  dispatch /m);
    expect(people).not.toMatch(/^  report /m);
    expect(plumbing).toMatch(/^  report /m);
    expect(plumbing).toMatch(/^  sentinel /m);
    expect(await vx(["help", "status"], { cwd: s.project, env: s.env })).toEqual(await vx(["status", "--help"], { cwd: s.project, env: s.env }));
    const bad = await vx(["help", "frobnicate"], { cwd: s.project, env: s.env });
    expect(bad).toEqual({ code: 64, stdout: "", stderr: `vx: unknown command "frobnicate"\nRun 'vx --help' for a list of commands.\n` });
  });

  test("unknown command: exact message, exit 64", async () => {
    using s = sandbox();
    const r = await vx(["frobnicate"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(64);
    expect(r.stderr).toBe(`vx: unknown command "frobnicate"\nRun 'vx --help' for a list of commands.\n`);
    expect(r.stdout).toBe("");
  });

  test("unknown flag on init is a usage error with the usage", async () => {
    using s = sandbox();
    const r = await vx(["init", "--frob"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith(`vx: unknown flag "--frob"\nUsage: vx init`);
  });

  test("invalid enumerated value is a usage error", async () => {
    using s = sandbox();
    const r = await vx(["init", "--yes", "--backend", "screen"], { cwd: s.project, env: s.env });
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith(`vx: unknown backend "screen", expected one of herdr, tmux\n`);
  });

  test.each([[["status"]], [["init", "--yes"]], [["doctor"]]])("HOME unset: %p fails with HOME is not set", async (argv: string[]) => {
    using s = sandbox();
    const { HOME: _, ...env } = s.env;
    const r = await vx(argv, { cwd: s.project, env });
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: HOME is not set - vx keeps its state in $HOME/.vexillum: set HOME and run it again\n" });
    const empty = await vx(argv, { cwd: s.project, env: { ...env, HOME: "" } });
    expect(empty.stderr).toBe("vx: HOME is not set - vx keeps its state in $HOME/.vexillum: set HOME and run it again\n");
  });

  test("HOME naming a missing directory: init and the sentinel refuse, and neither makes it", async () => {
    using s = sandbox();
    const home = join(dirname(s.home), "gone", "home");
    const env = { ...s.env, HOME: home };
    const message = `vx: HOME (${home}) does not exist - vx keeps its state in $HOME/.vexillum and never creates HOME itself: create it or set HOME to an existing directory\n`;
    const init = await vx(["init", "--yes"], { cwd: s.project, env });
    expect(init.code).toBe(1);
    expect(init.stderr).toEndWith(`\n${message}`);
    expect(existsSync(join(s.project, ".vexillum"))).toBe(false);
    expect(await vx(["sentinel"], { cwd: s.project, env })).toEqual({ code: 1, stdout: "", stderr: message });
    expect(existsSync(dirname(home))).toBe(false);
  });

  test("HOME unset still allows --help and --version", async () => {
    using s = sandbox();
    const { HOME: _, ...env } = s.env;
    expect((await vx(["--version"], { cwd: s.project, env })).code).toBe(0);
    expect((await vx(["--help"], { cwd: s.project, env })).code).toBe(0);
  });
});
