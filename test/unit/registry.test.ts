// One registry feeds --help and the README (CLI-02); the flag checker rejects what citty would ignore.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "citty";
import { checkFlags } from "../../src/command";
import { COMMAND_NAMES, allCommands, findCommand, generalHelp, readmeTable } from "../../src/commands";
import { UsageError } from "../../src/errors";

const COMMANDS = await allCommands();
const init = (await findCommand("init"))!;
const dispatch = (await findCommand("dispatch"))!;

describe("command registry", () => {
  test("the README's command table is the generated one", async () => {
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
    const between = readme.split("<!-- commands:start -->\n")[1]?.split("\n<!-- commands:end -->")[0];
    expect(between).toBe(await readmeTable());
  });

  test("--help lists every registered command with its summary", async () => {
    const lines = (await generalHelp()).split("\n");
    for (const c of COMMANDS) expect(lines.some((l) => l.startsWith(`  ${c.name} `) && l.endsWith(`  ${c.summary}`))).toBe(true);
  });

  // CLI-02's names and summaries, in its order: every one registered.
  const CLI_02: [string, string][] = [
    ["init", "Prepare the current project to be orchestrated by vexillum"],
    ["upgrade", "Update vx to the latest release, then refresh the project's vexillum scaffold"],
    ["doctor", "Report on the health of the vexillum environment"],
    ["dispatch", "Dispatch a soldier (mission or scout) into an isolated camp"],
    ["redispatch", "Re-dispatch an interrupted or failed task from its original prompt"],
    ["decide", "Answer a blocked task's open question so it can continue"],
    ["prompt", "Send a follow-up prompt to a soldier that already finished"],
    ["status", "Report the troop: every mission and scout in the current project"],
    ["land", "Land a finished mission's work into this project's base branch"],
    ["strike", "Strike a soldier's camp (dismantle it and return it to the pool) once its work has landed"],
    ["sentinel", "Watch dispatched soldiers and record status changes"],
    ["wait", "Wait for one soldier to settle and report how it ended (read-only)"],
    ["report", "Record a soldier's harness state from inside its camp (for harness hooks)"],
    ["forum", "Review artifacts with the general and read their feedback (the forum's server, sessions, board and inbox)"],
    ["completion", "Print a shell completion script (bash, zsh or fish)"],
    ["resume", "Resume an interrupted soldier in its camp, keeping its work"],
    ["models", "List the model profiles a dispatch can use"],
    ["demo", "Watch vx run a whole mission loop with scripted soldiers, no harness or API key needed"],
    ["archive", "Take finished tasks off the list, keeping their files"],
    ["machine", "The machines soldiers can run on, reached over your own ssh"],
  ];

  test("the registry is CLI-02's commands, summaries and order", () => {
    expect(COMMANDS.map((c) => [c.name, c.summary])).toEqual(CLI_02);
  });

  test("each name the registry finds a command by is that command's own; other names find none", async () => {
    expect(COMMAND_NAMES).toEqual(COMMANDS.map((c) => c.name));
    for (const name of COMMAND_NAMES) expect((await findCommand(name))?.name).toBe(name);
    for (const name of ["", "help", "Dispatch", "sentinel drain", "__proto__", "constructor"]) expect(await findCommand(name)).toBeUndefined();
  });

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

  test.each([
    [["- fix the list"], ["- fix the list"]],
    [
      ["--kind", "scout", "-  indented bullet", "and more"],
      ["-  indented bullet", "and more"],
    ],
    [
      ["fix", "--", "--kind", "-x"],
      ["fix", "--kind", "-x"],
    ],
  ])("a prompt word that is not a flag stays a prompt word: %p", (argv, positionals) => {
    expect(parseArgs(checkFlags(dispatch, argv), dispatch.args)._).toEqual(positionals);
  });

  test("an unknown flag is still refused next to a bulleted prompt", () => {
    expect(() => checkFlags(dispatch, ["- item", "--bogus"])).toThrow(UsageError);
  });
});
