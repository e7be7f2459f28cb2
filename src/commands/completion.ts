/** `vx completion bash|zsh|fish` (DIST-04): a completion script from the command registry. */
import { type VxCommand, defineVxCommand } from "../command";
import { bashScript } from "../completion/bash";
import { fishScript } from "../completion/fish";
import { completionSpec } from "../completion/spec";
import { zshScript } from "../completion/zsh";
import { EXIT, UsageError } from "../errors";

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;
const EXPECTED = "expected bash, zsh or fish";

/**
 * The command over the registry `commands` loads. The registry lists this command too, so it is
 * passed in and read when run: importing it from here would tie the two files in a cycle.
 */
export function completionCommand(commands: () => Promise<readonly VxCommand[]>): VxCommand {
  return defineVxCommand({
    name: "completion",
    summary: "Print a shell completion script (bash, zsh or fish)",
    usage: ["completion bash|zsh|fish"],
    args: {},
    async run(args, deps) {
      const [shell, ...extra] = args._ as string[];
      if (shell === undefined) throw new UsageError(`missing shell, ${EXPECTED}`, "completion");
      if (!Object.hasOwn(SHELLS, shell)) throw new UsageError(`unknown shell "${shell}", ${EXPECTED}`, "completion");
      if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`, "completion");
      deps.stdout.write(SHELLS[shell as keyof typeof SHELLS](completionSpec(await commands())));
      return EXIT.ok;
    },
  });
}
