#!/usr/bin/env bun
/**
 * The forum's change detection at 1,000 tasks over 20 projects with one open event stream (issue 29),
 * beside the 250 ms look it replaced (bench/forum-look-baseline.ts: the same look on the same state root,
 * run as the server ran it), both measured in this run:
 * - CPU over an idle window (nothing changes): the compiled `vx forum serve` against the baseline process,
 *   each read from its process CPU clock (nanoseconds on a CPU, ended threads included), and the
 *   floor both stand on: a compiled Bun program that only serves (Bun's own timers wake it too); and the
 *   same vx server before the page opened, so the page's own cost shows;
 * - latency from an atomic task-file write (temporary + rename) to the `board` event at the client,
 *   median and p95 over the changes, each change at a random moment (the old look's phase matters).
 * Usage: bun run build && bun bench/forum-watch.ts [changes] [idle seconds]
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createWatch } from "../src/forum/events";
import { projectKey } from "../src/state/paths";
import { VX, benchWorld, median, procCpuNs } from "./lib";

const changes = Number(process.argv[2] ?? 50);
// 30 s: the window holds one of the server's looks besides the watch (section 17), so its cost is counted.
const idleSeconds = Number(process.argv[3] ?? 30);
const PROJECTS = 20;
const PER_PROJECT = 50;
const w = benchWorld({ HERDR_WORKSPACE_ID: "w1" });
const root = join(w.home, ".vexillum");

async function idleCpuMs(pid: number): Promise<number> {
  const t0 = procCpuNs(pid);
  await Bun.sleep(idleSeconds * 1000);
  return (procCpuNs(pid) - t0) / 1e6;
}

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)] as number;

/** An SSE reader: `next(event)` resolves when that event arrives. */
async function events(url: string, headers: Record<string, string>) {
  const waiting: { name: string; resolve: () => void }[] = [];
  const ctl = new AbortController();
  const res = await fetch(url, { headers, signal: ctl.signal });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  void (async () => {
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buf += new TextDecoder().decode(value);
      let i = buf.indexOf("\n\n");
      while (i >= 0) {
        const name = /^event: (\S+)/m.exec(buf.slice(0, i))?.[1];
        buf = buf.slice(i + 2);
        for (const x of waiting.splice(0))
          if (x.name === name) x.resolve();
          else waiting.push(x);
        i = buf.indexOf("\n\n");
      }
    }
  })();
  return { next: (name: string) => new Promise<void>((r) => waiting.push({ name, resolve: r })), close: () => ctl.abort() };
}

function task(id: string, status: string) {
  const now = new Date().toISOString();
  return { id, schema_version: 1, kind: "mission", prompt: `task ${id}\nmore`, status, created_at: now, updated_at: now, output: "line\n".repeat(40), harness: "claude", backend: "tmux" };
}

function save(dir: string, t: ReturnType<typeof task>): void {
  writeFileSync(join(dir, `.${t.id}.tmp`), JSON.stringify(t));
  renameSync(join(dir, `.${t.id}.tmp`), join(dir, `${t.id}.json`));
}

// --- the state root: 1,000 tasks over 20 projects --------------------------------------------
const tasksDirs: string[] = [];
for (let n = 0; n < PROJECTS; n++) {
  const path = join(w.base, `p${n}`);
  mkdirSync(path, { recursive: true });
  const dir = join(root, "projects", projectKey(path));
  for (const sub of ["tasks", "wakes/forum", "states"]) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, "project.json"), JSON.stringify({ schema_version: 1, path }));
  tasksDirs.push(join(dir, "tasks"));
  for (let k = 0; k < PER_PROJECT; k++) save(join(dir, "tasks"), task((0x7000000000000000n + BigInt(n * PER_PROJECT + k)).toString(16), "running"));
}
const idOf = (i: number) => (0x7000000000000000n + BigInt(i)).toString(16);

/** `changes` task saves, each at a random moment, until the `board` event arrives: milliseconds. */
async function latencies(sse: Awaited<ReturnType<typeof events>>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < changes; i++) {
    await Bun.sleep(150 + Math.random() * 250);
    const n = (i * 7) % PROJECTS;
    const got = sse.next("board");
    const t0 = Bun.nanoseconds();
    save(tasksDirs[n] as string, task(idOf(n * PER_PROJECT + (i % PER_PROJECT)), i % 2 ? "running" : "done"));
    await got;
    out.push((Bun.nanoseconds() - t0) / 1e6);
  }
  return out;
}

// --- vx forum serve (the watch) ---------------------------------------------------------------
const started = Bun.spawnSync([VX, "forum", "board"], { cwd: w.project, env: w.env, stdout: "pipe", stderr: "pipe" });
if (started.exitCode !== 0) throw new Error(`vx forum board: ${started.stderr.toString()}`);
const info = JSON.parse(readFileSync(join(root, "forum", "server.json"), "utf8"));
const base = `http://127.0.0.1:${info.port}`;
const auth = { authorization: `Bearer ${info.token}` };
await Bun.sleep(2000);
const vxNoPage = await idleCpuMs(info.pid);
// As a page does: the board first (its garbage is collected within the window below), then the stream.
const board = (await (await fetch(`${base}/api/board`, { headers: auth })).json()) as { projects: { tasks: unknown[] }[] };
const count = board.projects.reduce((k, p) => k + p.tasks.length, 0);
const sse = await events(`${base}/api/events`, auth);
await Bun.sleep(1000);
const vxIdle = await idleCpuMs(info.pid);
const vxLatency = await latencies(sse);
sse.close();
Bun.spawnSync([VX, "forum", "stop"], { cwd: w.project, env: w.env });

// --- the baseline: the 250 ms look --------------------------------------------------------------
const old = Bun.spawn(["bun", "--smol", resolve(import.meta.dir, "forum-look-baseline.ts"), root], { stdout: "pipe", stderr: "inherit" });
let printed = "";
const out = old.stdout.getReader();
while (!printed.includes("\n")) {
  const { value, done } = await out.read();
  if (done) throw new Error("the baseline exited before printing its port");
  printed += new TextDecoder().decode(value);
}
const oldSse = await events(`http://127.0.0.1:${Number(printed.trim())}/`, {});
await Bun.sleep(1000);
const oldIdle = await idleCpuMs(old.pid);
const oldLatency = await latencies(oldSse);
oldSse.close();
old.kill();
await old.exited;

// --- the floor: a compiled Bun program that only serves, built like vx (--smol) -------------------
const src = join(w.base, "serve.ts");
writeFileSync(src, 'Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("x") });\nsetInterval(() => {}, 1 << 30);\n');
const built = await Bun.build({ entrypoints: [src], bytecode: true, format: "esm", compile: { outfile: join(w.base, "serve"), execArgv: ["--smol"] } });
if (!built.success) throw new Error("could not build the bare server");
const plain = Bun.spawn([join(w.base, "serve")], { stdout: "ignore", stderr: "ignore" });
await Bun.sleep(1000);
const plainIdle = await idleCpuMs(plain.pid);
plain.kill();
await plain.exited;

// --- one look, in this process -------------------------------------------------------------------
const look = createWatch(root);
const t0 = Bun.nanoseconds();
for (let i = 0; i < 40; i++) look.look();
const lookMs = (Bun.nanoseconds() - t0) / 1e6 / 40;
w.dispose();

const f = (x: number, d = 1) => x.toFixed(d);
const ratio = (a: number, b: number) => (b > 0 ? `${f(a / b, 3)}x` : "n/a");
console.log(`forum change detection: ${count} tasks over ${board.projects.length} projects, one open event stream`);
console.log(`idle CPU over ${idleSeconds} s (on-CPU time, all threads):`);
console.log(`  vx forum serve (watch):            ${f(vxIdle, 2)} ms  (the same server before the page opened: ${f(vxNoPage, 2)} ms)`);
console.log(`  baseline 250 ms look:              ${f(oldIdle, 2)} ms  (one look here: ${f(lookMs, 2)} ms)`);
console.log(`  ratio vx / baseline:               ${ratio(vxIdle, oldIdle)}`);
console.log(`  (floor: a bare Bun.serve, --smol:  ${f(plainIdle, 2)} ms; above it vx ${f(vxIdle - plainIdle, 2)} ms, baseline ${f(oldIdle - plainIdle, 2)} ms)`);
console.log(`task file renamed -> board event at the client (${changes} changes, median / p95):`);
console.log(`  vx forum serve (watch):            ${f(median(vxLatency))} / ${f(p95(vxLatency))} ms`);
console.log(`  baseline 250 ms look:              ${f(median(oldLatency))} / ${f(p95(oldLatency))} ms`);
console.log(`  ratio vx / baseline:               ${ratio(median(vxLatency), median(oldLatency))} / ${ratio(p95(vxLatency), p95(oldLatency))}`);
