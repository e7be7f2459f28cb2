// What shell completion knows, read from the command registry (DIST-04). Every word that goes into a script is checked here,
// so no generator ever quotes a surprise.
import type { ArgDef } from "citty";
import type { VxCommand } from "../command";

export type FlagSpec = {
  /** Without dashes: `kind`, `no-skills`. */
  long: string;
  short?: string;
  description: string;
  /** False for a switch; otherwise the values to offer (none: free text), or a file name. */
  value: false | { choices: string[] } | { file: true };
};

export type CommandSpec = { name: string; summary: string; subcommands: string[]; flags: FlagSpec[] };

export type CompletionSpec = { commands: CommandSpec[]; global: FlagSpec[] };

const WORD = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function word(w: string, what: string): string {
  if (!WORD.test(w)) throw new Error(`completion: ${what} "${w}" is not a plain word`);
  return w;
}

/** Value hints naming a path get file completion; `a|b|c` hints are the choices. */
const FILE_HINTS = new Set(["path", "file"]);

function flagValue(def: ArgDef, name: string): FlagSpec["value"] {
  if (def.type === "boolean") return false;
  if (def.type === "enum" && def.options) return { choices: def.options.map((o) => word(String(o), `value of --${name}`)) };
  const hint = def.valueHint ?? "";
  if (FILE_HINTS.has(hint)) return { file: true };
  if (hint.includes("|")) return { choices: hint.split("|").map((c) => word(c, `value of --${name}`)) };
  return { choices: [] };
}

function flagsOf(cmd: VxCommand): FlagSpec[] {
  const out: FlagSpec[] = [];
  for (const [name, def] of Object.entries(cmd.args)) {
    if (def.type === "positional") continue;
    const alias = [(def as { alias?: string | string[] }).alias ?? []].flat()[0];
    out.push({
      long: word(name, "flag"),
      ...(alias ? { short: word(alias, "flag alias") } : {}),
      description: def.description ?? "",
      value: flagValue(def, name),
    });
    // `--no-<flag>` exists only where the command documents it (see command.ts).
    const negative = (def as { negativeDescription?: string }).negativeDescription;
    if (def.type === "boolean" && negative) out.push({ long: word(`no-${name}`, "flag"), description: negative, value: false });
  }
  out.push({ long: "help", short: "h", description: "Print this command's usage", value: false });
  return out;
}

/** The second word of each usage line when plain or `a|b|c` (`completion bash|zsh|fish`), never a `<placeholder>` or flag. */
export function subcommandsOf(cmd: VxCommand): string[] {
  const out: string[] = [];
  for (const usage of cmd.usage) {
    const second = usage.split(" ")[1];
    if (!second || !/^[a-z][a-z0-9|-]*$/.test(second)) continue;
    for (const w of second.split("|")) if (!out.includes(w)) out.push(word(w, `subcommand of ${cmd.name}`));
  }
  return out;
}

export function completionSpec(commands: readonly VxCommand[]): CompletionSpec {
  return {
    commands: commands.map((c) => ({ name: word(c.name, "command"), summary: c.summary, subcommands: subcommandsOf(c), flags: flagsOf(c) })),
    global: [
      { long: "help", short: "h", description: "Print the general usage", value: false },
      { long: "version", short: "v", description: "Print the version", value: false },
    ],
  };
}
