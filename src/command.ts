// One registry of commands feeds `--help` and the README. Flags are checked strictly: an unknown flag is a usage error (64), never ignored.
import { type ArgsDef, type CommandDef, type ParsedArgs, defineCommand } from "citty";
import type { Deps } from "./deps";
import { UsageError } from "./errors";

export type VxCommand = {
  name: string;
  summary: string;
  /** Usage lines after `vx `, e.g. `status [--json]`. */
  usage: string[];
  args: ArgsDef;
  /** Run by hooks and the sentinel rather than by people: listed apart in `vx --help` (CLI-02). */
  plumbing?: boolean;
  /** Message for an unknown flag; default `unknown flag "<x>"`. */
  unknownFlag?: (flag: string) => string;
  /** `rawArgs`: argv as `checkFlags` returned it, for a flag that may be given more than once. */
  run(args: ParsedArgs, deps: Deps, rawArgs: string[]): Promise<number>;
  def: CommandDef;
};

export function defineVxCommand(spec: Omit<VxCommand, "def">): VxCommand {
  const def = defineCommand({
    meta: { name: spec.name, description: spec.summary },
    args: spec.args,
    run: ({ args, data, rawArgs }) => spec.run(args, data as Deps, rawArgs),
  });
  return { ...spec, def };
}

type FlagInfo = { takesValue: boolean; negatable: boolean };

function flagTable(args: ArgsDef): Map<string, FlagInfo> {
  const table = new Map<string, FlagInfo>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    // `--no-<flag>` only where the command documents it (a negativeDescription), e.g. --no-skills.
    const negatable = def.type === "boolean" && Boolean((def as { negativeDescription?: string }).negativeDescription);
    const info = { takesValue: def.type === "string" || def.type === "enum", negatable };
    const aliases = [(def as { alias?: string | string[] }).alias ?? []].flat();
    for (const n of [name, ...aliases]) table.set(n, info);
  }
  return table;
}

export function wantsHelp(argv: string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "-h" || a === "--help") return true;
  }
  return false;
}

/** A dash then a name; "- fix the list" (a prompt starting with a bullet) has whitespace in the name, so is an argument. */
function isFlagLike(word: string): boolean {
  if (!word.startsWith("-") || word === "-") return false;
  const name = word.replace(/^--?/, "").split("=", 1)[0] ?? "";
  return name !== "" && !/\s/.test(name);
}

/** Rejects unknown and value-less flags, and returns flags first and positionals after one `--`: citty would read "- fix the list" as short flags. */
export function checkFlags(cmd: VxCommand, argv: string[]): string[] {
  const table = flagTable(cmd.args);
  const unknown = (flag: string) => new UsageError(cmd.unknownFlag ? cmd.unknownFlag(flag) : `unknown flag "${flag}"`, cmd.name);
  const flags: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!isFlagLike(a)) {
      positionals.push(a);
      continue;
    }
    const body = a.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const name = eq >= 0 ? body.slice(0, eq) : body;
    let info = table.get(name);
    if (!info && name.startsWith("no-") && table.get(name.slice(3))?.negatable) info = { takesValue: false, negatable: false };
    if (!info || (a.startsWith("--") ? false : name.length !== 1)) throw unknown(a);
    flags.push(a);
    if (info.takesValue && eq < 0) {
      if (i + 1 >= argv.length || argv[i + 1] === "--") {
        throw new UsageError(`missing value for --${name}`, cmd.name);
      }
      flags.push(argv[++i] as string);
    }
    if (!info.takesValue && eq >= 0) throw unknown(a);
  }
  return positionals.length ? [...flags, "--", ...positionals] : flags;
}

/** `vx <command> --help`. */
export function commandHelp(cmd: VxCommand): string {
  const lines = [`Usage: ${cmd.usage.map((u) => `vx ${u}`).join("\n       ")}`, "", cmd.summary];
  const flags = Object.entries(cmd.args).filter(([, d]) => d.type !== "positional" && d.description);
  if (flags.length) {
    lines.push("", "Options:");
    const rows = flags.map(([name, d]) => {
      const a = (d as { alias?: string | string[] }).alias;
      const alias = a ? `, -${[a].flat()[0]}` : "";
      const value = d.type === "string" || d.type === "enum" ? ` <${d.valueHint ?? name}>` : "";
      return [`--${name}${alias}${value}`, d.description ?? ""];
    });
    const width = Math.max(...rows.map((r) => r[0].length));
    for (const [left, right] of rows) lines.push(`  ${left.padEnd(width)}  ${right}`);
  }
  return `${lines.join("\n")}\n`;
}
