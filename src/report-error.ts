// The one place an error becomes an exit code and a stderr line (ENV-08, ENV-09), for `main` and the sentinel's entry.
import type { Deps } from "./deps";
import { SilentExit, UsageError, VxError, errorMessage, storageRefusal } from "./errors";
import { EXIT } from "./exit-codes";
import { printable } from "./printable";

export function reportError(err: unknown, deps: Pick<Deps, "env" | "stderr">, usageOf: (command: string | undefined) => string): number {
  if (err instanceof SilentExit) return err.exit;
  if (err instanceof UsageError) {
    deps.stderr.write(`vx: ${printable(err.message)}\n${usageOf(err.command)}`);
    return err.exit;
  }
  if (err instanceof VxError) {
    if (err.message) deps.stderr.write(`vx: ${printable(err.message)}\n`);
    return err.exit;
  }
  const storage = storageRefusal(err);
  if (storage) {
    deps.stderr.write(`vx: ${printable(storage)}\n`);
    if (deps.env.VX_DEBUG && err instanceof Error && err.stack) deps.stderr.write(`${err.stack}\n`);
    return EXIT.error;
  }
  const hint = deps.env.VX_DEBUG ? "" : " (run it again with VX_DEBUG=1 to see where)";
  deps.stderr.write(`vx: unexpected error: ${printable(errorMessage(err))}${hint}\n`);
  if (deps.env.VX_DEBUG && err instanceof Error && err.stack) deps.stderr.write(`${err.stack}\n`);
  return EXIT.error;
}
