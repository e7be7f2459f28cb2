#!/usr/bin/env bun
/**
 * The forum server's costs (issue 18), each beside a baseline measured in the same run:
 * - idle RSS and CPU of `vx forum serve` (no page, then one open event stream) against a compiled
 *   Bun program that only runs Bun.serve, built like vx (scripts/build-options.ts);
 * - message-to-wake latency: a POST from the page until the 201 (transcript, inbox and wake on
 *   disk), and until a waiting `vx sentinel await` exits 2, against the await's latency for a
 *   soldier wake file renamed into the queue;
 * - the board's update latency at 200 tasks over 20 projects: a task file saved until the `board`
 *   event arrived and `/api/board` shows the new status, against the same with 1 task in 1 project.
 * Usage: bun run build && bun bench/forum.ts [rounds]
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LIKE_VX, LIKE_VX_COMPILE } from "../scripts/build-options";
import { projectKey } from "../src/state/paths";
import { VX, benchWorld, median, rssKiB } from "./lib";

const rounds = Number(process.argv[2] ?? 15);
const w = benchWorld({ HERDR_WORKSPACE_ID: "w1" });
const root = join(w.home, ".vexillum");
const CLK = 100; // USER_HZ on Linux

function cpuTicks(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return Number(f[11]) + Number(f[12]);
}

async function idle(pid: number, seconds: number): Promise<{ rss: number; anon: number; cpu: number }> {
  const t0 = cpuTicks(pid);
  await Bun.sleep(seconds * 1000);
  const ticks = cpuTicks(pid) - t0;
  const r = rssKiB(pid);
  return { rss: r.total / 1024, anon: r.anon / 1024, cpu: (ticks / CLK / seconds) * 100 };
}

function vx(args: string[], cwd = w.project): string {
  const r = Bun.spawnSync([VX, ...args], { cwd, env: w.env, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`vx ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

/** An SSE reader: resolves `next(event)` when that event arrives. */
function events(base: string, auth: Record<string, string>) {
  const waiting: { name: string; resolve: () => void }[] = [];
  const ctl = new AbortController();
  void (async () => {
    const res = await fetch(`${base}/api/events`, { headers: auth, signal: ctl.signal });
    const reader = res.body!.getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buf += new TextDecoder().decode(value);
      let i: number;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const name = /^event: (\S+)/m.exec(buf.slice(0, i))?.[1];
        buf = buf.slice(i + 2);
        for (const x of waiting.splice(0))
          if (x.name === name) x.resolve();
          else waiting.push(x);
      }
    }
  })();
  return {
    next: (name: string) => new Promise<void>((resolve) => waiting.push({ name, resolve })),
    close: () => ctl.abort(),
  };
}

// --- idle -------------------------------------------------------------------------------------
writeFileSync(join(w.project, "plan.md"), "# plan\n");
const url = new URL(/forum: (\S+)/.exec(vx(["forum", "plan.md"]))![1]!);
const info = JSON.parse(readFileSync(join(root, "forum", "server.json"), "utf8"));
const base = `http://127.0.0.1:${info.port}`;
// The page key as the page sends it (FOR-06: a header, never a cookie).
const auth = { authorization: `Bearer ${info.token}` };
await Bun.sleep(1000);
const serverIdle = await idle(info.pid, 10);
const sse = events(base, auth);
await Bun.sleep(500);
const serverOpen = await idle(info.pid, 10);

const src = join(w.base, "serve.ts");
// Built like vx, it sets the normal JIT policy once serving, as vx's server does (src/jit.ts).
writeFileSync(src, 'Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("x") });\nBun.unsafe.setJITPolicy(1);\nsetInterval(() => {}, 1 << 30);\n');
const built = await Bun.build({ entrypoints: [src], ...LIKE_VX, compile: { outfile: join(w.base, "serve"), ...LIKE_VX_COMPILE } });
if (!built.success) throw new Error("could not build the baseline server");
const plain = Bun.spawn([join(w.base, "serve")], { stdout: "ignore", stderr: "ignore" });
await Bun.sleep(1000);
const plainIdle = await idle(plain.pid, 10);
plain.kill();

// --- message to wake --------------------------------------------------------------------------
const session = url.pathname.split("/")[2]!;
const stateDir = join(root, "projects", projectKey(w.project));
const post = (text: string) =>
  fetch(`${base}/api/sessions/${session}/messages`, { method: "POST", headers: { ...auth, origin: base, "content-type": "application/json" }, body: JSON.stringify({ text }) });

async function awaitUntil(trigger: () => Promise<void> | void): Promise<number> {
  const p = Bun.spawn([VX, "sentinel", "await"], { cwd: w.project, env: w.env, stdout: "ignore", stderr: "pipe" });
  const record = join(root, "sentinel-awaiters", `${p.pid}.json`);
  while (!(await Bun.file(record).exists())) await Bun.sleep(5);
  await Bun.sleep(200);
  const t0 = Bun.nanoseconds();
  await trigger();
  const code = await p.exited;
  if (code !== 2) throw new Error(`await exited ${code}: ${await new Response(p.stderr).text()}`);
  return (Bun.nanoseconds() - t0) / 1e6;
}

const to201: number[] = [];
const forumWake: number[] = [];
const soldierWake: number[] = [];
mkdirSync(join(stateDir, "tasks"), { recursive: true });
mkdirSync(join(stateDir, "wakes"), { recursive: true });
for (let i = 0; i < rounds; i++) {
  forumWake.push(
    await awaitUntil(async () => {
      const t0 = Bun.nanoseconds();
      const r = await post(`message ${i}`);
      to201.push((Bun.nanoseconds() - t0) / 1e6);
      if (r.status !== 201) throw new Error(`POST answered ${r.status}`);
    }),
  );
  vx(["forum", "inbox", "--ack", ...JSON.parse(vx(["forum", "inbox", "--json"])).sessions.flatMap((s: { messages: { uid: string }[] }) => s.messages.map((m) => m.uid))]);
  const id = (0x6000000000000000n + BigInt(i)).toString(16);
  const task = { id, schema_version: 1, kind: "mission", prompt: "p", status: "done", created_at: "2026-11-30T10:00:00Z", updated_at: "2026-11-30T10:00:00Z" };
  writeFileSync(join(stateDir, "tasks", `${id}.json`), JSON.stringify(task));
  soldierWake.push(
    await awaitUntil(() => {
      const tmp = join(stateDir, "wakes", `.${id}.tmp`);
      writeFileSync(tmp, JSON.stringify({ task_id: id, kind: "mission", old_status: "running", new_status: "done", detected_at: "2026-11-30T10:00:01Z" }));
      renameSync(tmp, join(stateDir, "wakes", `${id}.json`));
    }),
  );
}
// The awaits started a sentinel; stop it (verified by its pid file) so it touches no task below.
const sentinelPid = Number(readFileSync(join(root, "sentinel.pid"), "utf8"));
process.kill(sentinelPid, "SIGTERM");
await Bun.sleep(500);

// --- the board --------------------------------------------------------------------------------
function fakeProject(n: number): { dir: string; tasksDir: string } {
  const path = join(w.base, `p${n}`);
  mkdirSync(path, { recursive: true });
  const dir = join(root, "projects", projectKey(path));
  mkdirSync(join(dir, "tasks"), { recursive: true });
  writeFileSync(join(dir, "project.json"), JSON.stringify({ schema_version: 1, path }));
  return { dir, tasksDir: join(dir, "tasks") };
}

// Each board task's camp holds a Claude Code transcript of TRANSCRIPT_KIB (TSK-13's reading, cached per task: FOR-09).
const TRANSCRIPT_KIB = 256;
const usageFixture = readFileSync(join(import.meta.dir, "..", "test", "fixtures", "usage", "claude.jsonl"), "utf8");
const filler = `${JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "tool_result", content: "x".repeat(4000) }] }, timestamp: "2026-12-06T06:11:29.000Z" })}\n`;

function campOf(id: string): string {
  const camp = join(w.base, "camps", id);
  if (existsSync(camp)) return camp;
  mkdirSync(camp, { recursive: true });
  const dir = join(w.home, ".claude", "projects", camp.replace(/[^a-zA-Z0-9]/g, "-"));
  mkdirSync(dir, { recursive: true });
  const body = usageFixture.replaceAll("/CAMP", camp);
  writeFileSync(join(dir, "s.jsonl"), body + filler.repeat(Math.ceil((TRANSCRIPT_KIB * 1024) / filler.length)) + body);
  return camp;
}

function task(id: string, status: string) {
  const now = new Date().toISOString();
  return {
    id,
    schema_version: 1,
    kind: "mission",
    prompt: `task ${id}\nmore`,
    status,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: now,
    output: "line\n".repeat(40),
    harness: "claude",
    backend: "tmux",
    camp_path: campOf(id),
  };
}

function save(dir: string, t: ReturnType<typeof task>) {
  writeFileSync(join(dir, `.${t.id}.tmp`), JSON.stringify(t));
  renameSync(join(dir, `.${t.id}.tmp`), join(dir, `${t.id}.json`));
}

type Board = { projects: { tasks: { id: string; status: string; usage?: { unknown?: string } }[] }[] };
const board = async () => (await (await fetch(`${base}/api/board`, { headers: auth })).json()) as Board;

async function boardLatency(tasksDir: string, id: string): Promise<{ event: number; shown: number }> {
  const out = { event: [] as number[], shown: [] as number[] };
  for (let i = 0; i < rounds; i++) {
    const status = i % 2 ? "running" : "done";
    const got = sse.next("board");
    const t0 = Bun.nanoseconds();
    save(tasksDir, task(id, status));
    await got;
    out.event.push((Bun.nanoseconds() - t0) / 1e6);
    const doc = await board();
    const seen = doc.projects.flatMap((p) => p.tasks).find((t) => t.id === id);
    if (seen?.status !== status) throw new Error(`board shows ${seen?.status}, not ${status}`);
    out.shown.push((Bun.nanoseconds() - t0) / 1e6);
    await Bun.sleep(300);
  }
  return { event: median(out.event), shown: median(out.shown) };
}

const one = fakeProject(0);
save(one.tasksDir, task("7000000000000000", "running"));
await Bun.sleep(600);
const small = await boardLatency(one.tasksDir, "7000000000000000");
const projects = [one, ...Array.from({ length: 19 }, (_, n) => fakeProject(n + 1))];
projects.forEach((p, n) => {
  for (let k = 0; k < 10; k++) save(p.tasksDir, task((0x7000000000000000n + BigInt(n * 10 + k)).toString(16), "running"));
});
await Bun.sleep(600);
// The first look reads every transcript; the next ones reuse what they read (a running task's again after 10 s).
const timed = async () => {
  const t0 = Bun.nanoseconds();
  const doc = await board();
  return { doc, ms: (Bun.nanoseconds() - t0) / 1e6 };
};
const cold = await timed();
const warm: number[] = [];
for (let i = 0; i < 5; i++) warm.push((await timed()).ms);
const whole = cold.doc;
const count = whole.projects.reduce((n, p) => n + p.tasks.length, 0);
const costed = whole.projects.flatMap((p) => p.tasks).filter((t) => t.usage && !t.usage.unknown).length;
// The page's weight as served: its HTML, stylesheet and scripts, and the board's data at this size.
const served = async (path: string) => (await (await fetch(`${base}${path}`, { headers: auth })).arrayBuffer()).byteLength;
const assets = ["/", "/assets/forum.css", "/assets/forum.js", "/assets/cards.js", "/assets/board.js"];
const assetBytes = (await Promise.all(assets.map(served))).reduce((a, b) => a + b, 0);
const boardBytes = await served("/api/board");
const big = await boardLatency(projects[7]!.tasksDir, (0x7000000000000000n + 75n).toString(16));

sse.close();
vx(["forum", "stop"]);
w.dispose();

const f = (x: number) => x.toFixed(1);
console.log(`idle 10 s each (RSS total / anonymous MiB, CPU %):`);
console.log(`  baseline Bun.serve (like vx):     ${f(plainIdle.rss)} / ${f(plainIdle.anon)} MiB, ${plainIdle.cpu.toFixed(2)} %`);
console.log(`  vx forum serve, no page:          ${f(serverIdle.rss)} / ${f(serverIdle.anon)} MiB, ${serverIdle.cpu.toFixed(2)} %`);
console.log(`  vx forum serve, one open stream:  ${f(serverOpen.rss)} / ${f(serverOpen.anon)} MiB, ${serverOpen.cpu.toFixed(2)} %`);
console.log(`message to wake (${rounds} rounds, medians):`);
console.log(`  POST to 201 (3 files on disk):    ${f(median(to201))} ms`);
console.log(`  POST to await exit 2:             ${f(median(forumWake))} ms`);
console.log(`  baseline soldier wake to exit 2:  ${f(median(soldierWake))} ms`);
console.log(`board update (${rounds} rounds, medians; task saved -> event / -> /api/board shows it):`);
console.log(`  baseline 1 task, 1 project:       ${f(small.event)} / ${f(small.shown)} ms`);
console.log(`  ${count} tasks, ${whole.projects.length} projects:         ${f(big.event)} / ${f(big.shown)} ms`);
console.log(`GET /api/board at ${count} tasks (${TRANSCRIPT_KIB} KiB transcript each; cost shown on ${costed}): first ${f(cold.ms)} ms, then median ${f(median(warm))} ms`);
console.log(`page weight: ${(assetBytes / 1024).toFixed(1)} KiB of HTML, CSS and scripts (${assets.join(", ")}), /api/board ${(boardBytes / 1024).toFixed(1)} KiB at ${count} tasks`);
