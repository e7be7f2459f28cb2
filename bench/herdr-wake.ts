#!/usr/bin/env bun
/**
 * Wake file -> the commander's model request, per harness, in a real herdr 0.8.2 pane and, as the
 * baseline in the same run, in a plain tmux pane. Each harness is seated as commander exactly as
 * the compat suite seats it (`test/compat/commander-seats.ts`: its command typed into the pane,
 * its first-run screens answered, a first turn, a hook-less one registered from its shell tool),
 * then takes N idle wakes through the suite's own check (`wakeWhileIdle`: settled, the wake file
 * renamed into the queue, the request holding the whole wake found at the mock server, once).
 * Hook-less commanders are woken by a sentinel at VX_TIME_SCALE=0.2 (a 1 s poll), as in the tests.
 * Usage: bun run build && bun bench/herdr-wake.ts [wakes=5] [harness...]
 */
import { firstTurn, wakeWhileIdle } from "../test/compat/commander-checks";
import { type On, commanderSeat } from "../test/compat/commander-seats";
import type { HarnessName } from "../test/compat/harnesses";
import { median } from "./lib";

const ALL: HarnessName[] = ["claude", "codex", "pi", "opencode", "gemini", "copilot"];
const wakes = Number(process.argv[2] ?? 5);
const harnesses = (process.argv.length > 3 ? process.argv.slice(3) : ALL) as HarnessName[];

let serial = 0;
async function measure(h: HarnessName, on: On): Promise<number[]> {
  const seat = await commanderSeat(h, on);
  try {
    await firstTurn(seat, h);
    await seat.register?.();
    const ms: number[] = [];
    for (let i = 0; i < wakes; i++) {
      const id = (0xbe00000000000000n + BigInt(++serial)).toString(16);
      ms.push(await wakeWhileIdle(seat.w, seat.pane, h, id, seat.settle));
    }
    return ms;
  } finally {
    await seat.close();
  }
}

const fmt = (ms: number[]) => (ms.length ? `median ${median(ms)} ms, max ${Math.max(...ms)} ms (${ms.join(", ")})` : "failed");
const rows: string[] = [];
for (const h of harnesses) {
  const got: Record<On, number[]> = { herdr: [], tmux: [] };
  for (const on of ["herdr", "tmux"] as On[]) {
    try {
      got[on] = await measure(h, on);
    } catch (err) {
      console.error(`${h} on ${on}: ${(err as Error).message.split("\n")[0]}`);
    }
  }
  rows.push(`${h.padEnd(9)} herdr: ${fmt(got.herdr)}\n${"".padEnd(9)} tmux:  ${fmt(got.tmux)}`);
}
console.log(`\nwake file -> commander model request, ${wakes} idle wakes per harness and terminal (real herdr 0.8.2; plain tmux as the baseline):`);
console.log(rows.join("\n"));
