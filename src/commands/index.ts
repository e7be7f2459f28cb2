/** The command registry: the one list `vx --help`, dispatch and the README table come from. */
import type { VxCommand } from "../command";
import { archiveCommand } from "./archive";
import { completionCommand } from "./completion";
import { decideCommand } from "./decide";
import { demoCommand } from "./demo";
import { dispatchCommand } from "./dispatch";
import { doctorCommand } from "./doctor";
import { forumCommand } from "./forum";
import { initCommand } from "./init";
import { landCommand } from "./land";
import { machineCommand } from "./machine";
import { modelsCommand } from "./models";
import { promptCommand } from "./prompt";
import { redispatchCommand } from "./redispatch";
import { reportCommand } from "./report";
import { resumeCommand } from "./resume";
import { sentinelCommand } from "./sentinel";
import { statusCommand } from "./status";
import { strikeCommand } from "./strike";
import { upgradeCommand } from "./upgrade";
import { waitCommand } from "./wait";

/** In CLI-02 order; later commands are added here as they are implemented. */
export const COMMANDS: VxCommand[] = [
  initCommand,
  upgradeCommand,
  doctorCommand,
  dispatchCommand,
  redispatchCommand,
  decideCommand,
  promptCommand,
  statusCommand,
  landCommand,
  strikeCommand,
  sentinelCommand,
  waitCommand,
  reportCommand,
  forumCommand,
  completionCommand(() => COMMANDS),
  resumeCommand,
  modelsCommand,
  demoCommand,
  archiveCommand,
  machineCommand,
];

export function findCommand(name: string): VxCommand | undefined {
  return COMMANDS.find((c) => c.name === name);
}

export function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const rows = (plumbing: boolean) => COMMANDS.filter((c) => Boolean(c.plumbing) === plumbing).map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
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
export function readmeTable(): string {
  // A `|` inside a table cell ends the cell in Markdown, even inside backticks.
  const rows = COMMANDS.map((c) => `| \`vx ${c.usage[0].replaceAll("|", "\\|")}\` | ${c.summary} |`);
  return ["| Command | What it does |", "| --- | --- |", ...rows].join("\n");
}
