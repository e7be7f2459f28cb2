/**
 * The command registry: the one list `vx --help`, dispatch and the README table come from. A command's
 * module loads only when it is the one run (help and completion load them all): `vx report` runs on
 * every soldier hook event and `vx sentinel await` on every commander turn, and neither should pay to
 * load dispatch, the forum or the demo (`test/unit/command-closure.test.ts`).
 */
import type { VxCommand } from "../command";

type Entry = readonly [name: string, load: () => Promise<VxCommand>];

/** In CLI-02 order; each name is its command's own (the registry test holds them equal). */
const ENTRIES: readonly Entry[] = [
  ["init", async () => (await import("./init")).initCommand],
  ["upgrade", async () => (await import("./upgrade")).upgradeCommand],
  ["doctor", async () => (await import("./doctor")).doctorCommand],
  ["dispatch", async () => (await import("./dispatch")).dispatchCommand],
  ["redispatch", async () => (await import("./redispatch")).redispatchCommand],
  ["decide", async () => (await import("./decide")).decideCommand],
  ["prompt", async () => (await import("./prompt")).promptCommand],
  ["status", async () => (await import("./status")).statusCommand],
  ["land", async () => (await import("./land")).landCommand],
  ["strike", async () => (await import("./strike")).strikeCommand],
  ["sentinel", async () => (await import("./sentinel")).sentinelCommand],
  ["wait", async () => (await import("./wait")).waitCommand],
  ["report", async () => (await import("./report")).reportCommand],
  ["forum", async () => (await import("./forum")).forumCommand],
  ["completion", async () => (await import("./completion")).completionCommand(allCommands)],
  ["resume", async () => (await import("./resume")).resumeCommand],
  ["models", async () => (await import("./models")).modelsCommand],
  ["demo", async () => (await import("./demo")).demoCommand],
  ["archive", async () => (await import("./archive")).archiveCommand],
  ["machine", async () => (await import("./machine")).machineCommand],
];

export const COMMAND_NAMES: readonly string[] = ENTRIES.map(([name]) => name);

/** The named command, its module loaded; undefined for a name not in the registry. */
export async function findCommand(name: string): Promise<VxCommand | undefined> {
  const entry = ENTRIES.find(([n]) => n === name);
  return entry ? entry[1]() : undefined;
}

/** Every command, in CLI-02 order. */
export function allCommands(): Promise<VxCommand[]> {
  return Promise.all(ENTRIES.map(([, load]) => load()));
}

export async function generalHelp(): Promise<string> {
  const commands = await allCommands();
  const width = Math.max(...commands.map((c) => c.name.length));
  const rows = (plumbing: boolean) => commands.filter((c) => Boolean(c.plumbing) === plumbing).map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    "vx - run coding agents (soldiers) in parallel camps, watched by a sentinel that wakes the commander",
    "",
    "Usage: vx <command> [options]",
    "",
    "Commands:",
    ...rows(false),
    "",
    "Plumbing (run by harness hooks and the sentinel, not by hand):",
    ...rows(true),
    "",
    "Run 'vx help <command>' or 'vx <command> --help' for a command's usage. 'vx --version' prints the version.",
    "",
  ].join("\n");
}

/** The README's command table, generated so it never drifts from `--help`. */
export async function readmeTable(): Promise<string> {
  // A `|` inside a table cell ends the cell in Markdown, even inside backticks.
  const rows = (await allCommands()).map((c) => `| \`vx ${c.usage[0].replaceAll("|", "\\|")}\` | ${c.summary} |`);
  return ["| Command | What it does |", "| --- | --- |", ...rows].join("\n");
}
