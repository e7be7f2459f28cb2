/**
 * `vx demo [--keep]` (CMD-DEMO-01/02): the whole loop on git and tmux alone, narrated on stderr.
 * It builds its world (demo/world.ts), runs the scripted commander (demo/script.ts) and always
 * tears the world down, on success, failure or Ctrl-C; `--keep` leaves the project and state for
 * reading (the tmux server and sentinel still stop).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { defineVxCommand } from "../command";
import { EXIT, UsageError, VxError, errorMessage } from "../errors";
import { narrator } from "../demo/narrate";
import { type Commander, commanderScript } from "../demo/script";
import { type World, checkTools, makeProject, makeWorld, removeDir, runSteps, startTmux, stopSentinel, stopTmux } from "../demo/world";
import { DEMO_TIME_SCALE, OWNER_FILE } from "../demo/world";
import { reapEarlierDemos } from "../demo/reap";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

export const demoCommand = defineVxCommand({
  name: "demo",
  summary: "Watch vx run a whole mission loop with scripted soldiers, no harness or API key needed",
  usage: ["demo [--keep]"],
  args: {
    keep: { type: "boolean", description: "Leave the throwaway project and its state for reading (tmux and the sentinel still stop)" },
  },
  async run(args, deps) {
    if (args._.length > 0) throw new UsageError(`unexpected argument "${String(args._[0])}"`, "demo");
    checkTools(deps.env);
    const say = await narrator(deps);
    const started = deps.clock.now();
    const ac = new AbortController();
    let commander: Commander | undefined;
    const onSignal = () => {
      ac.abort();
      commander?.awaiting?.kill("SIGTERM");
    };
    for (const s of SIGNALS) process.on(s, onSignal);
    let world: World | undefined;
    let failure: string | undefined;
    try {
      for (const line of await reapEarlierDemos(deps)) say.say(line);
      world = makeWorld(deps);
      commander = { deps, world, say, signal: ac.signal };
      say.say("vx demo: a commander, three soldiers and a sentinel, on git and tmux alone. The agents are");
      say.say("scripted stand-ins (no model, no API key); every vx command is the real one. vx's windows run at");
      say.say(`${DEMO_TIME_SCALE} of their length here (VX_TIME_SCALE), so the whole loop fits in well under a minute.`);
      await makeProject(deps, world);
      await startTmux(deps, world);
      say.logTo(world.log);
      await commanderScript(commander);
    } catch (err) {
      failure = ac.signal.aborted ? "interrupted" : errorMessage(err);
    }
    // The handlers stay through the teardown: a second Ctrl-C must not cut it short.
    const leftovers = world && commander ? await teardown(commander, world, Boolean(args.keep)) : [];
    for (const s of SIGNALS) process.off(s, onSignal);
    say.title("Cleaned up");
    for (const l of leftovers) say.say(`LEFT BEHIND: ${l}`);
    if (leftovers.length === 0)
      say.say(args.keep && world ? `tmux server and sentinel stopped; the project is kept in ${world.dir}` : "tmux server killed, sentinel stopped, temp dir removed: nothing left behind.");
    const secs = ((deps.clock.now() - started) / 1000).toFixed(1);
    if (failure) {
      say.say(`demo FAILED after ${secs}s: ${failure}`);
      if (ac.signal.aborted) return EXIT.interrupted;
      throw new VxError(`the demo failed: ${failure}`);
    }
    if (leftovers.length) throw new VxError(`the demo finished but left things behind: ${leftovers.join("; ")}`);
    say.say(`demo finished in ${secs}s.`);
    say.say("Next: in a real project, 'vx init' then let your commander agent 'vx dispatch' soldiers (see the README).");
    return EXIT.ok;
  },
});

/** Each stop runs whatever happened before; what could not be undone is named. */
async function teardown(c: Commander, w: World, keep: boolean): Promise<string[]> {
  c.awaiting?.kill("SIGTERM");
  await c.awaiting?.exited;
  const left = await runSteps([
    ["tmux", () => stopTmux(c.deps, w)],
    ["sentinel", () => stopSentinel(c.deps, w)],
  ]);
  try {
    // Kept: no longer owned, so the next demo leaves it for reading.
    if (keep) rmSync(join(w.dir, OWNER_FILE), { force: true });
    else removeDir(w);
  } catch (err) {
    left.push(`${w.dir}: ${errorMessage(err)}`);
  }
  return left;
}
