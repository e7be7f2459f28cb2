/**
 * `vx sentinel` | `vx sentinel drain` | `vx sentinel await` | `vx sentinel stop` (CMD-SENTINEL-01). Each
 * loads only its own work: hooks run drain and await on every commander turn, and need no sentinel pass.
 */
import { defineVxCommand } from "../command";
import { EXIT, UsageError, VxError } from "../errors";
import { stateRoot } from "../state/paths";

export const sentinelCommand = defineVxCommand({
  name: "sentinel",
  summary: "Watch dispatched soldiers and record status changes",
  plumbing: true,
  usage: ["sentinel", "sentinel drain", "sentinel await", "sentinel stop"],
  args: {},
  async run(args, deps) {
    const [sub, ...extra] = args._ as string[];
    // Anything unknown is refused: a guessed subcommand must never fall through to the loop.
    if (sub !== undefined && sub !== "drain" && sub !== "await" && sub !== "stop") {
      throw new UsageError(`unknown sentinel subcommand "${sub}"`, "sentinel");
    }
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`, "sentinel");
    if (sub === "drain") return (await import("../awaiters/drain")).drain(deps);
    if (sub === "await") return (await import("../awaiters/await")).awaitWake(deps);
    if (sub === "stop") {
      const { stopSentinel } = await import("../sentinel/stop");
      const root = stateRoot(deps.env);
      const { stopped, left } = await stopSentinel(deps, root);
      if (left) throw new VxError(`${left} - nothing was signalled that is not this state root's sentinel`);
      // The next command that needs it (a dispatch, a hook) starts it again (SEN-23).
      deps.stderr.write(stopped ? `vx: stopped the sentinel (pid ${stopped}); the next vx dispatch starts it again\n` : "vx: no sentinel is running\n");
      return EXIT.ok;
    }
    return (await import("../sentinel/loop")).runSentinel(deps);
  },
});
