/**
 * Real soldiers dispatched with `vx dispatch --backend tmux` in a compat world. vx calls plain
 * `tmux`, so the world's TMUX_TMPDIR gives it (and the sentinel it auto-starts) a default server
 * of the world's own, which the test reads through the same socket. The missions, camps, gates
 * and wakes are fleet.ts's.
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Task } from "../../src/state/schemas";
import { type Dispatched, type FleetCore, type Mission, SCALE, childrenOf, fleetCore, settlesOn, stopHarness } from "./fleet";
import type { HarnessName } from "./harnesses";
import { type World, type WorldOptions, world } from "./world";

export { SCALE, commitAndHold, shellCall, wakeSeen, workFile, type Dispatched, type Mission, type Step } from "./fleet";

export type Fleet = World &
  FleetCore & {
    /** tmux on the default server vx uses. */
    tmuxd(...args: string[]): { code: number; out: string; err: string };
    screen(session: string, lines?: number): string;
    hasSession(session: string): boolean;
    dispatch(m: Mission): Promise<Dispatched>;
    /** Kills the harness process of `session` (verified by pane pid and command line). */
    killHarness(session: string): void;
    closeFleet(): Promise<void>;
  };

export async function fleet(harness: HarnessName, opts: Pick<WorldOptions, "env" | "prepare"> = {}): Promise<Fleet> {
  let tmuxDir = "";
  const w = await world({
    harness,
    // A Claude Code commander has a Stop-hook await to deliver wakes, none runs here: they stay queued.
    commander: "claude",
    env: { VX_TIME_SCALE: SCALE, ...opts.env },
    prepare: (x) => {
      tmuxDir = join(dirname(x.home), "tmux");
      mkdirSync(tmuxDir, { recursive: true });
      return { ...(opts.prepare?.(x) ?? {}), TMUX_TMPDIR: tmuxDir };
    },
  });
  // Dispatched from a plain terminal: no herdr pane around the commander.
  delete w.env.HERDR_WORKSPACE_ID;
  delete w.env.HERDR_PANE_ID;
  const core = fleetCore(w, harness);
  const tmuxd = (...args: string[]) => {
    const res = Bun.spawnSync(["tmux", ...args], { env: w.env, stdout: "pipe", stderr: "pipe" });
    return { code: res.exitCode, out: res.stdout.toString(), err: res.stderr.toString() };
  };
  const f: Fleet = Object.assign(w, core, {
    tmuxd,
    screen: (session: string, lines = 200) => tmuxd("capture-pane", "-p", "-J", "-t", `=${session}:`, "-S", String(-lines)).out,
    hasSession: (session: string) => tmuxd("has-session", "-t", `=${session}`).code === 0,
    dispatch: (m: Mission) => core.dispatchOn("tmux", m, (t: Task) => t.tmux_target ?? ""),
    killHarness(session: string) {
      const pid = Number(tmuxd("display-message", "-p", "-t", `=${session}:`, "#{pane_pid}").out.trim());
      const ps = Bun.spawnSync(["ps", "-o", "args=", "-p", String(pid)], { stdout: "pipe" }).stdout.toString();
      if (!(pid > 0) || !ps.includes(harness)) throw new Error(`session ${session}'s pane process ${pid} is not ${harness}: ${ps.trim()}`);
      stopHarness(harness, pid);
    },
    async closeFleet() {
      core.closeCore();
      // A Gemini CLI outlives its pane (docs/real-clients.md): its processes are ended here.
      const panes = tmuxd("list-panes", "-a", "-F", "#{pane_pid}")
        .out.split("\n")
        .map(Number)
        .filter((n) => n > 0);
      const leftovers = harness === "gemini" ? panes.flatMap((p) => [p, ...childrenOf(p).map((c) => c.pid)]) : [];
      tmuxd("kill-server");
      for (const pid of leftovers) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Gone already.
        }
      }
      await w.close();
    },
  });
  return f;
}

/** Waits for the task to reach `status`; the screen and the task go into the error when it never does. */
export function settles(f: Fleet, d: Dispatched, status: Task["status"], timeoutMs = 60_000): Promise<Task> {
  return settlesOn(f, () => f.screen(d.session, 60), d, status, timeoutMs);
}
