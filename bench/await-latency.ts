#!/usr/bin/env bun
/**
 * Latency from a wake file appearing in the queue to `vx sentinel await` exiting 2 (AWT-04; goal
 * about 1 s or less). The poll interval stays at its real 5 s, so only the directory watch can
 * deliver faster. Usage: bun run build && bun bench/await-latency.ts [rounds]
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectKey } from "../src/state/paths";
import { VX, benchWorld, median } from "./lib";

const rounds = Number(process.argv[2] ?? 15);
const w = benchWorld({ HERDR_WORKSPACE_ID: "w1" });
const state = join(w.home, ".vexillum", "projects", projectKey(w.project));
mkdirSync(join(state, "tasks"), { recursive: true });
mkdirSync(join(state, "wakes"), { recursive: true });
const latencies: number[] = [];
for (let i = 0; i < rounds; i++) {
  const id = (0x5000000000000000n + BigInt(i)).toString(16);
  const task = { id, schema_version: 1, kind: "mission", prompt: "p", status: "done", created_at: "2026-11-30T10:00:00Z", updated_at: "2026-11-30T10:00:00Z" };
  writeFileSync(join(state, "tasks", `${id}.json`), JSON.stringify(task));
  const p = Bun.spawn([VX, "sentinel", "await"], { cwd: w.project, env: w.env, stdout: "ignore", stderr: "pipe" });
  const record = join(w.home, ".vexillum", "sentinel-awaiters", `${p.pid}.json`);
  for (;;) {
    try {
      readFileSync(record);
      break;
    } catch {
      await Bun.sleep(5);
    }
  }
  await Bun.sleep(200); // let it settle into its wait, the case that matters
  const wake = { task_id: id, kind: "mission", old_status: "running", new_status: "done", detected_at: "2026-11-30T10:00:01Z" };
  const tmp = join(state, "wakes", `.${id}.tmp`);
  writeFileSync(tmp, JSON.stringify(wake));
  const t0 = Bun.nanoseconds();
  renameSync(tmp, join(state, "wakes", `${id}.json`));
  const code = await p.exited;
  latencies.push((Bun.nanoseconds() - t0) / 1e6);
  if (code !== 2) throw new Error(`await exited ${code}: ${await new Response(p.stderr).text()}`);
}
const pidFile = join(w.home, ".vexillum", "sentinel.pid");
try {
  // Only the sentinel the awaits auto-started, verified by its pid file and command line.
  const pid = Number(readFileSync(pidFile, "utf8"));
  if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(1, 2)[0] === "sentinel") process.kill(pid, "SIGTERM");
} catch {}
w.dispose();
const sorted = [...latencies].sort((a, b) => a - b);
console.log(`rounds: ${rounds}`);
console.log(`wake written -> await exited 2: median ${median(latencies).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms (poll interval 5000 ms)`);
