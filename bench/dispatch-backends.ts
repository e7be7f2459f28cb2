#!/usr/bin/env bun
/**
 * Dispatch latency on the real herdr 0.8.2 against tmux, same harness, same machine, same run: a
 * stand-in `claude` (shows Claude Code's prompt mark, sets a spinner title and writes a file when a
 * line reaches it) dispatched N times on each backend, interleaved. Two figures per dispatch: the
 * first prompt reaching the program (the file appears) and `vx dispatch` exiting (after its
 * quick-settle probe, the same window on both).
 * Usage: bun run build && bun bench/dispatch-backends.ts [runs=5]
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startRealHerdr } from "../test/herdr-real";
import { VX, benchWorld, median, run } from "./lib";

const runs = Number(process.argv[2] ?? 5);
const identity = { GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b.invalid", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b.invalid" };
// Claude Code refuses its bypass flag as root without IS_SANDBOX=1 (vx checks it first).
const w = benchWorld({ ...identity, IS_SANDBOX: "1" });
const agentBin = join(w.base, "agent-bin");
const got = join(w.base, "got");
mkdirSync(agentBin);
mkdirSync(got);
// Named `claude` and kept running as itself: herdr detects the agent by its foreground program.
writeFileSync(join(agentBin, "claude"), `#!/bin/sh\nprintf '\\342\\235\\257 \\n'\nwhile read -r line; do printf '\\033]0;\\342\\240\\202 work\\007'; : > "${got}/$$"; done\n`, { mode: 0o755 });
run(["git", "add", "-A"], w.project, w.env);
run(["git", "commit", "-qm", "scaffold"], w.project, w.env);

const h = await startRealHerdr({ env: { PATH: `${agentBin}:${process.env.PATH}` } });
const ws = h.workspace(w.project);
const base = { ...w.env, PATH: `${h.binDir}:${agentBin}:${w.env.PATH}` };
const envs = {
  herdr: { ...base, ...h.paneEnv(ws) },
  tmux: { ...base, TMUX_TMPDIR: w.base },
};

async function once(backend: "herdr" | "tmux"): Promise<{ prompt: number; exit: number }> {
  const before = readdirSync(got).length;
  const t0 = performance.now();
  const proc = Bun.spawn([VX, "dispatch", "--backend", backend, "--harness", "claude", `bench ${backend} ${Date.now()}`], {
    cwd: w.project,
    env: envs[backend],
    stdout: "pipe",
    stderr: "pipe",
  });
  let prompt = Number.NaN;
  while (proc.exitCode === null || Number.isNaN(prompt)) {
    if (Number.isNaN(prompt) && readdirSync(got).length > before) prompt = performance.now() - t0;
    if (proc.exitCode !== null && Number.isNaN(prompt)) break;
    await Bun.sleep(5);
  }
  const code = await proc.exited;
  const exit = performance.now() - t0;
  if (code !== 0) throw new Error(`vx dispatch --backend ${backend} exited ${code}: ${await new Response(proc.stderr).text()}`);
  return { prompt, exit };
}

const times = { herdr: [] as { prompt: number; exit: number }[], tmux: [] as { prompt: number; exit: number }[] };
try {
  for (let i = 0; i < runs; i++) {
    times.herdr.push(await once("herdr"));
    times.tmux.push(await once("tmux"));
  }
} finally {
  Bun.spawnSync(["tmux", "kill-server"], { env: envs.tmux, stdout: "ignore", stderr: "ignore" });
  await h.stop();
  // The sentinel the first dispatch started retires when its state root is gone.
  w.dispose();
}
const s = (xs: number[]) => `median ${(median(xs) / 1000).toFixed(2)} s, max ${(Math.max(...xs) / 1000).toFixed(2)} s`;
console.log(`vx dispatch of a stand-in claude, ${runs} runs per backend, interleaved:`);
for (const b of ["herdr", "tmux"] as const) {
  console.log(`  ${b.padEnd(5)} first prompt reached the program: ${s(times[b].map((t) => t.prompt))}; dispatch exited: ${s(times[b].map((t) => t.exit))}`);
}
const ratio = median(times.herdr.map((t) => t.prompt)) / median(times.tmux.map((t) => t.prompt));
console.log(`  herdr / tmux, first prompt: ${ratio.toFixed(2)}x`);
