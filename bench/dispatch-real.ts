#!/usr/bin/env bun
/**
 * Dispatch latency with the real Claude Code on the real herdr 0.8.2 and, as the baseline in the
 * same run, on tmux: the compat suite's fleets (`test/compat/herdr-fleet.ts`, `tmux-fleet.ts`: the
 * pinned Claude Code against the mock model server, default settings, its folder-trust dialog in
 * every new camp), N dispatches per backend, interleaved, each struck once measured. Two figures
 * per dispatch: the mission's first model request (the prompt reached Claude Code and it asked
 * its model) and `vx dispatch` exiting (after its quick-settle probe, the same window on both;
 * both fleets run at the compat suite's VX_TIME_SCALE).
 * Usage: bun run build && bun bench/dispatch-real.ts [runs=5]   (needs the compat harness cache)
 */
import { claudeEnv, seedClaude } from "../test/compat/claude-setup";
import { type Dispatched, FINAL, type Mission } from "../test/compat/fleet";
import { type HerdrFleet, herdrFleet } from "../test/compat/herdr-fleet";
import { type Fleet, fleet } from "../test/compat/tmux-fleet";
import { vx } from "../test/helpers";
import { median } from "./lib";

const runs = Number(process.argv[2] ?? 5);
type Backend = "herdr" | "tmux";
type Times = { request: number; exit: number };

// Tags are letters only: the fleet's camp sampler takes `work-<letters>.txt` for a mission's own file.
const tagOf = (b: Backend, i: number) => `${b}${String.fromCharCode(97 + i)}`;

async function once(f: HerdrFleet | Fleet, b: Backend, i: number): Promise<Times> {
  const m: Mission = f.mission(tagOf(b, i), "say you are done", () => ({ text: FINAL }));
  const t0 = Date.now();
  const d: Dispatched = b === "herdr" ? await (f as HerdrFleet).dispatch(m) : await (f as Fleet).dispatch(m);
  const until = Date.now() + 60_000;
  while (m.replies.length === 0 && Date.now() < until) await Bun.sleep(20);
  if (m.replies.length === 0) throw new Error(`${b}: mission ${m.tag} never asked its model`);
  const request = m.replies[0]!.at - t0;
  f.stopSampling(d.id);
  const s = await vx(["strike", d.id], { cwd: f.project, env: f.env });
  if (s.code !== 0) throw new Error(`vx strike ${d.id} exited ${s.code}: ${s.stderr}`);
  return { request, exit: d.ms };
}

// As the compat suite seats Claude Code: its home seeded (nothing trusted), the mock model server.
const setup: Parameters<typeof herdrFleet>[1] = { prepare: (x) => (seedClaude(x.home, []), claudeEnv(x.models.url)) };
const h = await herdrFleet("claude", setup);
let t: Fleet | undefined;
const times: Record<Backend, Times[]> = { herdr: [], tmux: [] };
try {
  t = await fleet("claude", setup);
  for (let i = 0; i < runs; i++) {
    times.herdr.push(await once(h, "herdr", i));
    times.tmux.push(await once(t, "tmux", i));
  }
} finally {
  await h.closeFleet();
  await t?.closeFleet();
}
const s = (xs: number[]) => `median ${(median(xs) / 1000).toFixed(2)} s, max ${(Math.max(...xs) / 1000).toFixed(2)} s (${xs.map((x) => (x / 1000).toFixed(1)).join(", ")})`;
console.log(`vx dispatch of the real Claude Code, ${runs} runs per backend, interleaved (VX_TIME_SCALE=${h.env.VX_TIME_SCALE}):`);
for (const b of ["herdr", "tmux"] as const) {
  console.log(`  ${b.padEnd(5)} first model request: ${s(times[b].map((x) => x.request))}`);
  console.log(`  ${"".padEnd(5)} dispatch exited:     ${s(times[b].map((x) => x.exit))}`);
}
const ratio = (k: keyof Times) => (median(times.herdr.map((x) => x[k])) / median(times.tmux.map((x) => x[k]))).toFixed(2);
console.log(`  herdr / tmux: first model request ${ratio("request")}x, dispatch exited ${ratio("exit")}x`);
