#!/usr/bin/env bun
/**
 * `vx status --json` with 50 Claude soldiers whose camps each hold a transcript of `mb` MiB (TSK-13: only the camp's
 * own files, read line by line), against the same 50 tasks with no transcripts (usage unknown). Also a `cat` of
 * every transcript, the floor of reading them at all. Usage: bun run build && bun bench/status-usage.ts [runs] [mb]
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectPaths } from "../src/state/paths";
import { VX, benchWorld, interleaved, taskFile } from "./lib";

const runs = Number(process.argv[2] ?? 10);
const mb = Number(process.argv[3] ?? 2);
const TASKS = 50;
const fixture = readFileSync(join(import.meta.dir, "..", "test", "fixtures", "usage", "claude.jsonl"), "utf8");
// A transcript's bulk is tool results and attachments, lines without usage; a few assistant lines carry it.
const filler = `${JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "tool_result", content: "x".repeat(4000) }] }, timestamp: "2026-12-06T06:11:29.000Z" })}\n`;

function world(withTranscripts: boolean) {
  const w = benchWorld();
  const paths = projectPaths(join(w.home, ".vexillum"), w.project);
  mkdirSync(paths.tasksDir, { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < TASKS; i++) {
    const id = (0x7000000000000000n + BigInt(i)).toString(16);
    const camp = join(w.base, "camps", String(i));
    mkdirSync(camp, { recursive: true });
    taskFile(paths, id, { camp_path: camp, created_at: "2026-01-01T00:00:00Z" });
    if (!withTranscripts) continue;
    const dir = join(w.home, ".claude", "projects", camp.replace(/[^a-zA-Z0-9]/g, "-"));
    mkdirSync(dir, { recursive: true });
    const body = fixture.replaceAll("/CAMP", camp);
    const file = join(dir, "s.jsonl");
    writeFileSync(file, body + filler.repeat(Math.ceil((mb * 1024 * 1024) / filler.length)) + body);
    files.push(file);
  }
  return { w, files };
}

const full = world(true);
const bare = world(false);
// The figure counts only if every task's usage was found.
const doc = JSON.parse(Bun.spawnSync([VX, "status", "--json"], { cwd: full.w.project, env: full.w.env }).stdout.toString());
if (doc.usage_total?.tasks_known !== TASKS) throw new Error(`expected ${TASKS} known usages, got ${JSON.stringify(doc.usage_total)}`);
const [withUsage, without, cat] = interleaved(
  [
    { argv: [VX, "status", "--json"], cwd: full.w.project, env: full.w.env },
    { argv: [VX, "status", "--json"], cwd: bare.w.project, env: bare.w.env },
    { argv: ["sh", "-c", 'cat "$@" >/dev/null', "sh", ...full.files], cwd: full.w.project, env: full.w.env },
  ],
  runs,
);
full.w.dispose();
bare.w.dispose();
console.log(`runs: ${runs} each, interleaved; ${TASKS} Claude tasks, ${mb} MiB transcript each`);
console.log(`vx status --json, transcripts read:   median ${withUsage.toFixed(1)} ms`);
console.log(`vx status --json, no transcripts:     median ${without.toFixed(1)} ms`);
console.log(`cat of the ${TASKS} transcripts:             median ${cat.toFixed(1)} ms`);
console.log(`ratio with / without transcripts:     ${(withUsage / without).toFixed(2)}x`);
console.log(`reading cost over cat:                ${((withUsage - without) / cat).toFixed(2)}x`);
