#!/usr/bin/env bun
/**
 * The sentinel's pass on the REAL herdr 0.8.2 (test/herdr-real.ts): N running soldiers, each a
 * stand-in `claude` program started with `herdr agent start` in its own tab, their tasks spread
 * over projects of ten. Counts the herdr processes each in-process pass starts (goal 1, whatever N)
 * through a counting `herdr` in front of the real one, and the pass's CPU beside the same pass
 * against a `herdr` that answers `agent list` from a file (the baseline: herdr's own time left out).
 * Usage: bun run build && bun bench/herdr-pass.ts [sizes=20,200]
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectPaths } from "../src/state/paths";
import { ensureProjectRecord } from "../src/state/project-record";
import { startRealHerdr } from "../test/herdr-real";
import { benchWorld, fakeHerdrList, median, taskFile, timedPasses } from "./lib";

const sizes = (process.argv[2] ?? "20,200").split(",").map(Number);
// A stand-in Claude Code: herdr detects the agent by the foreground program's name (so the script
// keeps running as itself; an `exec cat` would be taken for `cat`) and waits for it to look ready.
// Each blocks opening the GO fifo (no polling: 200 sleeping loops would load the machine); the
// bench opens and closes it once, which releases them all, and each sets a title with a braille
// spinner, which herdr's claude manifest reads as `working` (its osc_title rule), so the tasks stay
// running through every pass.
const standIn = (go: string) => `#!/bin/sh\nprintf '\\342\\235\\257 \\n'\n: < ${go}\nprintf '\\033]0;\\342\\240\\202 bench\\007'\nwhile read -r line; do :; done\n`;

async function measure(n: number): Promise<void> {
  const w = benchWorld();
  const root = join(w.home, ".vexillum");
  const agentBin = join(w.base, "agent-bin");
  mkdirSync(agentBin);
  const go = join(w.base, "go");
  Bun.spawnSync(["mkfifo", go]);
  writeFileSync(join(agentBin, "claude"), standIn(go), { mode: 0o755 });
  const h = await startRealHerdr({ env: { PATH: `${agentBin}:${process.env.PATH}` } });
  try {
    const ws = h.workspace(w.base, "bench");
    const started = Date.now();
    const agents: { name: string; pane: string }[] = [];
    for (let i = 0; i < n; i++) {
      const tab = h.json<{ root_pane: { pane_id: string } }>(["tab", "create", "--workspace", ws.workspace, "--cwd", w.base, "--label", `t${i}`, "--no-focus"]);
      agents.push({ name: `vx-bench-${i}`, pane: tab.root_pane.pane_id });
    }
    // Started a batch at a time: each `agent start` waits for its program's readiness.
    for (let i = 0; i < agents.length; i += 10) {
      const batch = agents.slice(i, i + 10).map(async (a) => {
        const p = Bun.spawn(["herdr", "agent", "start", a.name, "--kind", "claude", "--pane", a.pane], { env: { ...h.env, HOME: h.home }, stdout: "pipe", stderr: "pipe" });
        const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
        if (code !== 0) throw new Error(`agent start ${a.name} failed (exit ${code}): ${err.trim()}`);
      });
      await Promise.all(batch);
    }
    // Opening the fifo for writing lets every reader's open through; closing it gives them EOF.
    closeSync(openSync(go, "w"));
    const end = Date.now() + 60_000;
    const working = () => h.json<{ agents: { agent_status: string }[] }>(["agent", "list"]).agents.filter((a) => a.agent_status === "working").length;
    while (working() < n && Date.now() < end) await Bun.sleep(200);
    console.log(`${n} stand-in agents started on the real herdr (${working()} working) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const listed: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const p = Math.floor(i / 10);
      const dir = join(w.base, `proj${p}`);
      const paths = projectPaths(root, dir);
      mkdirSync(paths.tasksDir, { recursive: true });
      ensureProjectRecord(paths);
      const id = (0x7000000000000000n + BigInt(i)).toString(16);
      const a = agents[i]!;
      taskFile(paths, id, { backend: "herdr", herdr_agent_name: a.name, herdr_pane_id: a.pane });
      listed.push({
        agent: "claude",
        agent_status: "working",
        name: a.name,
        pane_id: a.pane,
        tab_id: "w1:t1",
        workspace_id: ws.workspace,
        state_change_seq: 3,
        revision: 1,
        terminal_id: "term_1",
        focused: false,
      });
    }
    // A counting `herdr` in front of the real one.
    const countBin = join(w.base, "count-bin");
    mkdirSync(countBin);
    const callLog = join(w.base, "herdr-calls");
    writeFileSync(callLog, "");
    writeFileSync(join(countBin, "herdr"), `#!/bin/sh\necho "$1 $2" >> ${callLog}\nexec ${join(h.binDir, "herdr")} "$@"\n`, { mode: 0o755 });
    const calls = () => readFileSync(callLog, "utf8").split("\n").filter(Boolean);
    const realEnv = { ...w.env, HERDR_SOCKET_PATH: h.socket, PATH: `${countBin}:${w.env.PATH}` };
    const fileBin = join(w.base, "file-bin");
    mkdirSync(fileBin);
    const fromFile = fakeHerdrList(fileBin, w.base, listed);
    const fileEnv = { ...w.env, PATH: `${fileBin}:${w.env.PATH}` };

    const real = await timedPasses(root, realEnv, () => calls().length, 30, 5);
    const kinds = [...new Set(calls())].join(", ");
    const file = await timedPasses(root, fileEnv, fromFile.calls, 30, 5);
    console.log(`${n} running tasks over ${Math.ceil(n / 10)} projects, 30 in-process passes on the real herdr:`);
    console.log(`  herdr processes per pass: ${[...new Set(real.perPass)].join(", ")} (${kinds}) (goal 1)`);
    console.log(
      `  sentinel CPU per pass: real herdr ${median(real.cpu).toFixed(2)} ms, baseline (agent list from a file) ${median(file.cpu).toFixed(2)} ms: ${(median(real.cpu) / median(file.cpu)).toFixed(2)}x`,
    );
  } finally {
    await h.stop();
    w.dispose();
  }
}

for (const n of sizes) await measure(n);
