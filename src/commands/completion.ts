/** `vx completion bash|zsh|fish` (DIST-04): a completion script from the command registry. */
import { defineVxCommand } from "../command";
import { bashScript } from "../completion/bash";
import { fishScript } from "../completion/fish";
import { completionSpec } from "../completion/spec";
import { zshScript } from "../completion/zsh";
import { EXIT, UsageError } from "../errors";

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;
const EXPECTED = "expected bash, zsh or fish";

export const completionCommand = defineVxCommand({
  name: "completion",
  summary: "Print a shell completion script (bash, zsh or fish)",
  usage: ["completion bash|zsh|fish"],
  args: {},
  async run(args, deps) {
    const [shell, ...extra] = args._ as string[];
    if (shell === undefined) throw new UsageError(`missing shell, ${EXPECTED}`, "completion");
    if (!Object.hasOwn(SHELLS, shell)) throw new UsageError(`unknown shell "${shell}", ${EXPECTED}`, "completion");
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`, "completion");
    // The registry lists this command too, so it is read when run, not when this module loads.
    const { COMMANDS } = await import("./index");
    deps.stdout.write(SHELLS[shell as keyof typeof SHELLS](completionSpec(COMMANDS)));
    return EXIT.ok;
  },
});
