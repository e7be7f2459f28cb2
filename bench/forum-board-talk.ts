#!/usr/bin/env bun
/**
 * The board's conversation (FOR-09), each figure beside a baseline from the same run and server:
 * - a board message's POST until its 201 (the conversation line, inbox message and wake on disk, and who listens
 *   asked first), against a review session's message POST (transcript, inbox, wake) until its 201;
 * - `/api/board` with a 5,000-line conversation (50 shown), against the same board with none.
 * Usage: bun run build && bun bench/forum-board-talk.ts [rounds]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectKey } from "../src/state/paths";
import { VX, benchWorld, median } from "./lib";

const rounds = Number(process.argv[2] ?? 30);
const w = benchWorld({ HERDR_WORKSPACE_ID: "w1" });
const root = join(w.home, ".vexillum");
const vx = (args: string[]) => {
  const r = Bun.spawnSync([VX, ...args], { cwd: w.project, env: w.env, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`vx ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
};

try {
  writeFileSync(join(w.project, "plan.md"), "# plan\n");
  const session = new URL(/forum: (\S+)/.exec(vx(["forum", "plan.md"]))?.[1] as string).pathname.split("/")[2] as string;
  const info = JSON.parse(readFileSync(join(root, "forum", "server.json"), "utf8"));
  const base = `http://127.0.0.1:${info.port}`;
  const headers = { authorization: `Bearer ${info.token}`, origin: base, "content-type": "application/json" };
  const timed = async (path: string, body?: unknown, want = 201): Promise<number> => {
    const t0 = Bun.nanoseconds();
    const res = await fetch(`${base}${path}`, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
    await res.arrayBuffer();
    if (res.status !== want) throw new Error(`${path}: ${res.status}`);
    return (Bun.nanoseconds() - t0) / 1e6;
  };

  // Interleaved, so drift on a shared machine falls on both alike.
  const boardPost: number[] = [];
  const reviewPost: number[] = [];
  for (let i = 0; i < rounds; i++) {
    boardPost.push(await timed("/api/projects/messages", { project_path: w.project, text: `board ${i}` }));
    reviewPost.push(await timed(`/api/sessions/${session}/messages`, { text: `review ${i}` }));
  }

  const talk = join(root, "projects", projectKey(w.project), "forum-board.jsonl");
  const at = new Date().toISOString();
  const line = (i: number) => JSON.stringify({ uid: `m${i.toString(36)}-00000000`, from: i % 2 ? "commander" : "general", text: `line ${i} ${"x".repeat(80)}`, at });
  const big = `${Array.from({ length: 5000 }, (_, i) => line(i)).join("\n")}\n`;
  const withTalk: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < rounds; i++) {
    writeFileSync(talk, big);
    withTalk.push(await timed("/api/board", undefined, 200));
    writeFileSync(talk, "");
    without.push(await timed("/api/board", undefined, 200));
  }

  const ms = (x: number) => `${x.toFixed(2)} ms`;
  const row = (what: string, vxMs: number, baseMs: number, baseline: string) => console.log(`${what}: vx ${ms(vxMs)}, baseline (${baseline}) ${ms(baseMs)}, ratio ${(vxMs / baseMs).toFixed(2)}`);
  console.log(`forum board conversation, median of ${rounds} rounds`);
  row("board message POST to 201", median(boardPost), median(reviewPost), "a review message POST to 201");
  row("/api/board with a 5,000-line conversation", median(withTalk), median(without), "with none");
} finally {
  Bun.spawnSync([VX, "forum", "stop"], { cwd: w.project, env: w.env });
  w.dispose();
}
