// The one place errors become exit codes and stderr lines (ENV-08, ENV-09).
import { runCommand } from "citty";
import { type VxCommand, checkFlags, commandHelp, wantsHelp } from "./command";
import { findCommand, generalHelp } from "./commands";
import { type Deps, realDeps } from "./deps";
import { EXIT, UsageError, VxError } from "./errors";
import { printable } from "./printable";
import { reportError } from "./report-error";
import { NO_HOME } from "./state/paths";
import { VERSION } from "./version";

async function usageOf(name: string | undefined): Promise<string> {
  const cmd = name ? await findCommand(name) : undefined;
  return cmd ? commandHelp(cmd) : generalHelp();
}

/** Maps an error to its exit code, printing what the user needs on stderr. */
export async function report(err: unknown, deps: Deps): Promise<number> {
  const usage = err instanceof UsageError ? await usageOf(err.command) : "";
  return reportError(err, deps, () => usage);
}

async function runVx(cmd: VxCommand, rest: string[], deps: Deps): Promise<number> {
  const { result } = await runCommand(cmd.def, { rawArgs: checkFlags(cmd, rest), data: deps });
  return typeof result === "number" ? result : EXIT.ok;
}

export async function main(argv: string[], deps: Deps = realDeps()): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "-h" || first === "--help") {
    deps.stdout.write(await generalHelp());
    return EXIT.ok;
  }
  if (first === "-v" || first === "--version") {
    deps.stdout.write(`vx ${VERSION}\n`);
    return EXIT.ok;
  }
  if (first === "help") {
    const [name, extra] = rest;
    const named = name === undefined ? undefined : await findCommand(name);
    if (name !== undefined && (!named || extra !== undefined)) {
      deps.stderr.write(`vx: ${named ? `unexpected argument "${printable(extra!)}"` : `unknown command "${printable(name)}"`}\nRun 'vx --help' for a list of commands.\n`);
      return EXIT.usage;
    }
    deps.stdout.write(named ? commandHelp(named) : await generalHelp());
    return EXIT.ok;
  }
  const cmd = await findCommand(first);
  if (!cmd) {
    deps.stderr.write(`vx: unknown command "${printable(first)}"\nRun 'vx --help' for a list of commands.\n`);
    return EXIT.usage;
  }
  if (wantsHelp(rest)) {
    deps.stdout.write(commandHelp(cmd));
    return EXIT.ok;
  }
  try {
    // A completion script is the registry alone: no HOME, state root or project needed.
    if (!deps.env.HOME && first !== "completion") {
      // An await launched by a hook must never fail loudly (AWT-10); everything else says why.
      if (first === "sentinel" && rest[0] === "await") return EXIT.ok;
      throw new VxError(NO_HOME);
    }
    return await runVx(cmd, rest, deps);
  } catch (err) {
    return await report(err, deps);
  }
}
