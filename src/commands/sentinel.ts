/** `vx sentinel` | `vx sentinel drain` | `vx sentinel await` (CMD-SENTINEL-01). */
import { awaitWake } from "../awaiters/await";
import { drain } from "../awaiters/drain";
import { defineVxCommand } from "../command";
import { UsageError } from "../errors";
import { runSentinel } from "../sentinel/loop";

export const sentinelCommand = defineVxCommand({
  name: "sentinel",
  summary: "Watch dispatched soldiers and record status changes",
  usage: ["sentinel", "sentinel drain", "sentinel await"],
  args: {},
  async run(args, deps) {
    const [sub, ...extra] = args._ as string[];
    // Anything unknown is refused: a guessed subcommand must never fall through to the loop.
    if (sub !== undefined && sub !== "drain" && sub !== "await") {
      throw new UsageError(`unknown sentinel subcommand "${sub}"`, "sentinel");
    }
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`, "sentinel");
    if (sub === "drain") return drain(deps);
    if (sub === "await") return awaitWake(deps);
    return runSentinel(deps);
  },
});
