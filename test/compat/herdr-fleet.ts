/**
 * Real soldiers dispatched with `vx dispatch --backend herdr` from a commander in a pane of the
 * real herdr 0.8.2 (test/herdr-real.ts). The herdr server runs as a person starts it, with their
 * login environment (HOME, a PATH of the system tools and herdr); what the commander's pane
 * exported on top (the harness on PATH, its model server and key, IS_SANDBOX) is the world's
 * environment, which only the dispatch has. The missions, camps, gates and wakes are fleet.ts's.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../src/state/schemas";
import { type RealHerdr, startRealHerdr } from "../herdr-real";
import { type Dispatched, type FleetCore, type Mission, SCALE, fleetCore, settlesOn, stopHarness } from "./fleet";
import type { HarnessName } from "./harnesses";
import { type World, type WorldOptions, privateTmp, world } from "./world";

export type HerdrFleet = World &
  FleetCore & {
    herdr: RealHerdr;
    /** The commander's pane: where every dispatch runs from. */
    commander: { workspace: string; pane: string; tab: string };
    /** Dispatches from the commander's pane (`env` replaces its environment, as another pane's would). */
    dispatch(m: Mission, env?: Record<string, string>): Promise<Dispatched>;
    /** The soldier's pane as it shows now (`herdr pane read --source visible`). */
    screen(d: Pick<Dispatched, "id">): string;
    /** The agents herdr lists, by name. */
    agentNames(): string[];
    tabIds(): string[];
    /** The harness process in the task's pane: its foreground process, verified by name and directory. */
    harnessPid(d: Pick<Dispatched, "id">): number;
    killHarness(d: Pick<Dispatched, "id">): void;
    closeFleet(): Promise<void>;
  };

export async function herdrFleet(harness: HarnessName, opts: Pick<WorldOptions, "env" | "prepare"> = {}): Promise<HerdrFleet> {
  const w = await world({ harness, commander: "claude", env: { VX_TIME_SCALE: SCALE, ...opts.env }, prepare: opts.prepare });
  // The world's fake herdr is not this fleet's.
  rmSync(join(w.bin, "herdr"), { force: true });
  delete w.env.FAKE_HERDR_STATE;
  delete w.env.FAKE_HERDR_LOG;
  // Its own private HOME (its socket and config live there), as test/herdr-real.ts gives it.
  const h = await startRealHerdr({ env: { TMPDIR: privateTmp(w.home) } });
  const ws = h.workspace(w.project, "commander");
  Object.assign(w.env, h.paneEnv(ws), { PATH: `${h.binDir}:${w.env.PATH}` });
  const core = fleetCore(w, harness);
  const json = <T>(args: string[]): T => h.json<T>(args);
  const f: HerdrFleet = Object.assign(w, core, {
    herdr: h,
    commander: ws,
    dispatch: (m: Mission, env?: Record<string, string>) => core.dispatchOn("herdr", m, (t: Task) => t.herdr_agent_name ?? "", env),
    screen(d: Pick<Dispatched, "id">) {
      const pane = core.task(d.id).herdr_pane_id;
      return pane ? h.run(["pane", "read", pane, "--source", "visible"]).stdout : "(no pane recorded)";
    },
    agentNames: () => json<{ agents: { name?: string }[] }>(["agent", "list"]).agents.flatMap((a) => (a.name ? [a.name] : [])),
    tabIds: () => json<{ tabs: { tab_id: string }[] }>(["tab", "list", "--workspace", ws.workspace]).tabs.map((t) => t.tab_id),
    harnessPid(d: Pick<Dispatched, "id">) {
      const t = core.task(d.id);
      const info = json<{ process_info: { foreground_processes: { pid: number; name: string; argv: string[]; cwd?: string }[] } }>(["pane", "process-info", "--pane", t.herdr_pane_id ?? ""]);
      const proc = info.process_info.foreground_processes.find((p) => p.cwd === t.camp_path && [p.name, ...p.argv].join(" ").includes(harness));
      if (!proc) throw new Error(`no ${harness} in the foreground of pane ${t.herdr_pane_id}: ${JSON.stringify(info)}`);
      return proc.pid;
    },
    killHarness(d: Pick<Dispatched, "id">) {
      stopHarness(harness, f.harnessPid(d));
    },
    async closeFleet() {
      core.closeCore();
      // Every pane's program ends with the server.
      await h.stop();
      await w.close();
    },
  });
  return f;
}

/** Waits for the task to reach `status`; the soldier's screen and the task go into the error when it never does. */
export function settles(f: HerdrFleet, d: Dispatched, status: Task["status"], timeoutMs = 60_000): Promise<Task> {
  // What herdr made of the screen goes with it: its status is what the sentinel judges.
  const seen = () => `${f.screen(d)}\n--- herdr agent explain ---\n${f.herdr.run(["agent", "explain", d.session]).stdout}\n--- task ---\n${JSON.stringify(f.task(d.id))}`;
  return settlesOn(f, seen, d, status, timeoutMs);
}
