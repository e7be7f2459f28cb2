// One registry feeds --help and the README (CLI-02); the flag checker rejects what citty would ignore.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "citty";
import { checkFlags } from "../../src/command";
import { COMMANDS, findCommand, generalHelp, readmeTable } from "../../src/commands";
import { UsageError } from "../../src/errors";

describe("command registry", () => {
  test("the README's command table is the generated one", () => {
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
    const between = readme.split("<!-- commands:start -->\n")[1]?.split("\n<!-- commands:end -->")[0];
    expect(between).toBe(readmeTable());
  });

  test("--help lists every registered command with its summary", () => {
    const lines = generalHelp().split("\n");
    for (const c of COMMANDS) expect(lines.some((l) => l.startsWith(`  ${c.name} `) && l.endsWith(`  ${c.summary}`))).toBe(true);
  });

  const init = findCommand("init")!;
  test.each([
    { argv: ["--yes"], ok: true },
    { argv: ["-y", "--lang", "es"], ok: true },
    { argv: ["--lang=es", "--no-skills"], ok: true },
    { argv: ["--", "--not-a-flag"], ok: true },
    { argv: ["--bogus"], ok: false },
    { argv: ["-x"], ok: false },
    { argv: ["-yes"], ok: false },
    { argv: ["--lang"], ok: false },
    { argv: ["--yes=1"], ok: false },
  ] as { argv: string[]; ok: boolean }[])("init flags $argv", ({ argv, ok }) => {
    if (ok) expect(() => checkFlags(init, argv)).not.toThrow();
    else expect(() => checkFlags(init, argv)).toThrow(UsageError);
  });

  const dispatch = findCommand("dispatch")!;
  test.each([
    [["- fix the list"], ["- fix the list"]],
    [["--kind", "scout", "-  indented bullet", "and more"], ["-  indented bullet", "and more"]],
    [["fix", "--", "--kind", "-x"], ["fix", "--kind", "-x"]],
  ])("a prompt word that is not a flag stays a prompt word: %p", (argv, positionals) => {
    expect(parseArgs(checkFlags(dispatch, argv), dispatch.args)._).toEqual(positionals);
  });

  test("an unknown flag is still refused next to a bulleted prompt", () => {
    expect(() => checkFlags(dispatch, ["- item", "--bogus"])).toThrow(UsageError);
  });
});
