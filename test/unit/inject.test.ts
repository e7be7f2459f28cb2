// The sentinel's delivery to hook-less commanders (CMDR-08 OpenCode without its plugin, CMDR-09
// Codex) against the fake herdr and a fake `codex`, and the pass's agent list made for it (SEN-05).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { registerAwaiter } from "../../src/awaiters/registry";
import { injectWakes } from "../../src/commanders/inject";
import { runPass } from "../../src/sentinel/pass";
import { type ProjectPaths, rootPaths } from "../../src/state/paths";
import type { SoldierWake } from "../../src/state/schemas";
import { writeForumWake, writeSoldierWake } from "../../src/wakes/queue";
import { reasonText } from "../../src/wakes/reason";
import { installFakeCodex } from "../fakes/codex";
import { addAgent, callsOf, createWorkspace, recordedPrompts, setAgentStatus, setPaneText } from "../fakes/herdr-control";
import { writeExecutable } from "../helpers";
import { createHerdrClient } from "../../src/backends/herdr/client";
import { realExec } from "../../src/exec";
import { T0, iso, taskId, world } from "../sentinel-kit";

const FALLBACK_MS = 30_000;
const THREAD = "019a0000-1111-7222-8333-444455556666";

/** Each commander's screen as herdr renders it, idle with an empty input line (docs/real-clients.md). */
const EMPTY: Record<"codex" | "opencode", string> = {
  codex: "› Ask Codex to do anything\n\n  mock-1 default · /tmp/project\n  ← for agents · ? for shortcuts\n",
  opencode: '  ┃\n  ┃  Ask anything… "Fix broken tests"\n  ┃\n  ┃  Build · mock-1 mock\n  ╹▀▀▀▀▀▀▀▀\n',
};

/** A project with a live hook-less commander (its screen idle, its input empty), a done task and its pending wake. */
async function field(opts: { harness?: "codex" | "opencode"; status?: "working" | "idle" | "done"; register?: boolean; thread?: string | null } = {}) {
  const harness = opts.harness ?? "codex";
  const w = world();
  const { dir, paths } = w.addProject();
  const ws = createWorkspace(w.herdr, { cwd: dir });
  addAgent(w.herdr, ws.pane_id, { kind: harness, status: opts.status ?? "working" });
  setPaneText(w.herdr, ws.pane_id, EMPTY[harness], "visible");
  if (opts.register !== false) {
    const entry: Record<string, string> = { herdr_pane_id: ws.pane_id, herdr_workspace_id: ws.workspace_id, project_path: dir, registered_at: iso(T0) };
    if (harness === "codex" && opts.thread !== null) Object.assign(entry, { codex_thread_id: opts.thread ?? THREAD, codex_home: join(w.home, ".codex-c") });
    writeFileSync(paths.commandersFile, JSON.stringify({ schema_version: 1, commanders: { [harness]: entry } }, null, 2));
  }
  const id = taskId();
  w.writeTask(paths, { id, status: "done" });
  const wake: SoldierWake = { task_id: id, kind: "mission", old_status: "running", new_status: "done", detected_at: iso(T0 + 1000) };
  const wakePath = writeSoldierWake(paths.root, paths.wakesDir, wake);
  const codex = installFakeCodex(w.bin);
  const agents = () => createHerdrClient({ exec: realExec, env: w.ctx.env }).agentList();
  return { w, dir, paths, pane: ws.pane_id, id, wake, wakePath, codex, agents };
}

const queueNames = (paths: ProjectPaths) => readdirSync(paths.wakesDir).filter((n) => !n.startsWith("."));
const readJson = (p: string) => JSON.parse(readFileSync(p, "utf8"));

const spawned: Bun.Subprocess[] = [];
afterEach(() => {
  for (const p of spawned.splice(0)) p.kill();
});

describe("Codex commander delivery (CMDR-09)", () => {
  test("queues once into the recorded thread with its CODEX_HOME, deletes the claims and logs", async () => {
    const f = await field();
    using _w = f.w;
    writeForumWake(f.paths, { session: "s1", file: "notes.md", count: 1, ended: false, detectedAt: T0 + 2000 });
    mkdirSync(join(f.paths.forumInboxDir, "s1"), { recursive: true });
    const msg = { uid: "u1", session: "s1", file: "notes.md", text: "hi", received_at: iso(T0 + 2000) };
    writeFileSync(join(f.paths.forumInboxDir, "s1", "u1.json"), JSON.stringify(msg));
    const agents = await f.agents();

    await injectWakes(f.w.ctx, agents);

    const text = reasonText([f.wake], [{ session: "s1", file: "notes.md", count: 1, ended: false, detected_at: iso(T0 + 2000) }]);
    expect(text).toContain("Forum feedback is waiting for you:");
    expect(f.codex.calls()).toEqual([{ argv: ["queue", "--thread", THREAD, "--message", text], cwd: f.dir, codexHome: join(f.w.home, ".codex-c") }]);
    expect(queueNames(f.paths)).toEqual(["forum"]);
    expect(readdirSync(f.paths.forumWakesDir)).toEqual([]);
    expect(f.w.logs).toEqual([`sentinel: delivered 2 wake(s) to the codex commander of ${f.dir}`]);

    await injectWakes(f.w.ctx, agents);
    expect(f.codex.calls()).toHaveLength(1);
    expect(recordedPrompts(f.w.herdr)).toHaveLength(0);
  });

  test("a project a live verified await serves is left to that await", async () => {
    const f = await field();
    using _w = f.w;
    // A process whose command line reads as an uncompiled `vx sentinel await`; it waits on its stdin.
    const entry = join(f.w.home, "dev", "src", "cli.ts");
    mkdirSync(join(f.w.home, "dev", "src"), { recursive: true });
    writeFileSync(entry, "await Bun.stdin.text();\n");
    const proc = Bun.spawn(["bun", entry, "sentinel", "await"], { stdin: "pipe", stdout: "ignore", stderr: "ignore" });
    spawned.push(proc);
    const rec = { pid: proc.pid, owner_pid: process.pid, project_path: f.dir, project_key: f.paths.key, started_at: iso(T0) };
    registerAwaiter(rootPaths(f.w.root).awaitersDir, rec);

    await injectWakes(f.w.ctx, await f.agents());
    expect(f.codex.calls()).toHaveLength(0);
    expect(queueNames(f.paths)).toEqual([`${f.id}.json`]);

    proc.kill();
    await proc.exited;
    await injectWakes(f.w.ctx, await f.agents());
    expect(f.codex.calls()).toHaveLength(1);
  });

  test("nothing is claimed when the commander is not live, not registered, or herdr gave no list", async () => {
    const f = await field();
    using _w = f.w;
    const before = readFileSync(f.wakePath, "utf8");
    await injectWakes(f.w.ctx, undefined);
    await injectWakes(f.w.ctx, []);
    // Another kind of agent in the registered pane is not a codex commander.
    const other = (await f.agents()).map((a) => ({ ...a, agent: "claude" }));
    await injectWakes(f.w.ctx, other);
    expect(f.codex.calls()).toHaveLength(0);
    expect(readFileSync(f.wakePath, "utf8")).toBe(before);

    const g = await field({ register: false });
    using _g = g.w;
    await injectWakes(g.w.ctx, await g.agents());
    expect(g.codex.calls()).toHaveLength(0);
    expect(queueNames(g.paths)).toEqual([`${g.id}.json`]);
  });

  test("a failure stamps delivery_failing_since once, puts the wake back and logs once", async () => {
    const f = await field();
    using _w = f.w;
    f.codex.answer({ code: 1, stderr: "Error: no rollout found for thread id 019a\n" });
    // A field from a newer vx rides along untouched (STA-06).
    writeFileSync(f.wakePath, JSON.stringify({ ...f.wake, x_future: [1] }, null, 2));
    const agents = await f.agents();
    const first = f.w.clock.now();

    await injectWakes(f.w.ctx, agents);
    expect(queueNames(f.paths)).toEqual([`${f.id}.json`]);
    expect(readJson(f.wakePath)).toEqual({ ...f.wake, delivery_failing_since: iso(first), x_future: [1] });

    f.w.clock.advance(5000);
    await injectWakes(f.w.ctx, agents);
    expect(f.codex.calls()).toHaveLength(2);
    expect(readJson(f.wakePath).delivery_failing_since).toBe(iso(first));
    expect(f.w.logs).toEqual([`sentinel: codex commander of ${f.dir} not reached: codex queue failed (exit 1): Error: no rollout found for thread id 019a (wakes kept, retried every pass)`]);
  });

  test("no recorded thread is a failure that keeps the wake, and says how a thread gets recorded", async () => {
    const f = await field({ thread: null });
    using _w = f.w;
    await injectWakes(f.w.ctx, await f.agents());
    expect(f.codex.calls()).toHaveLength(0);
    expect(readJson(f.wakePath).delivery_failing_since).toBe(iso(f.w.clock.now()));
    expect(f.w.logs[0]).toContain("no Codex thread recorded for this commander yet");
  });

  test("after 30 s of failures it goes through herdr agent prompt, but only while the commander is idle or done", async () => {
    const f = await field({ status: "working" });
    using _w = f.w;
    f.codex.answer({ code: 1, stderr: "boom\n" });
    await injectWakes(f.w.ctx, await f.agents());
    f.w.clock.advance(FALLBACK_MS);

    // Working: codex queue is tried again, nothing is typed into the pane.
    await injectWakes(f.w.ctx, await f.agents());
    expect(f.codex.calls()).toHaveLength(2);
    expect(callsOf(f.w.herdr, "agent", "prompt")).toHaveLength(0);

    setAgentStatus(f.w.herdr, f.pane, "idle");
    await injectWakes(f.w.ctx, await f.agents());
    expect(f.codex.calls()).toHaveLength(2);
    const argv = callsOf(f.w.herdr, "agent", "prompt")[0]!.argv;
    expect(argv.slice(argv.indexOf("prompt"))).toEqual(["prompt", f.pane, reasonText([f.wake], [])]);
    expect(queueNames(f.paths)).toEqual([]);
    expect(f.w.logs.at(-1)).toBe(`sentinel: delivered 1 wake(s) to the codex commander of ${f.dir} via herdr agent prompt`);
  });

  test("failing since a time in the future (the wall clock stepped back an hour): herdr agent prompt at once, not in an hour (TIME-02)", async () => {
    const f = await field({ status: "idle" });
    using _w = f.w;
    f.codex.answer({ code: 1, stderr: "boom\n" });
    await injectWakes(f.w.ctx, await f.agents());
    expect(f.codex.calls()).toHaveLength(1);
    f.w.clock.step(-3_600_000);
    await injectWakes(f.w.ctx, await f.agents());
    expect(f.codex.calls()).toHaveLength(1);
    expect(callsOf(f.w.herdr, "agent", "prompt")).toHaveLength(1);
    expect(queueNames(f.paths)).toEqual([]);
  });

  test("a stale wake (the task moved on) is consumed and not queued", async () => {
    const f = await field();
    using _w = f.w;
    f.w.writeTask(f.paths, { id: f.id, status: "running" });
    await injectWakes(f.w.ctx, await f.agents());
    expect(f.codex.calls()).toHaveLength(0);
    expect(queueNames(f.paths)).toEqual([]);
    expect(f.w.logs).toEqual([]);
  });

  test("codex missing (exit 127) is a failure that keeps the wake", async () => {
    const f = await field();
    using _w = f.w;
    writeExecutable(join(f.w.bin, "codex"), "#!/bin/sh\nexit 127\n");
    await injectWakes(f.w.ctx, await f.agents());
    expect(queueNames(f.paths)).toEqual([`${f.id}.json`]);
    expect(f.w.logs[0]).toContain("codex not found in PATH");
  });
});

describe("OpenCode without its wake plugin (CMDR-08)", () => {
  test("waits, unclaimed, while the commander works, then types the wake into its idle pane", async () => {
    const f = await field({ harness: "opencode", status: "working" });
    using _w = f.w;
    const before = readFileSync(f.wakePath, "utf8");
    await injectWakes(f.w.ctx, await f.agents());
    expect(readFileSync(f.wakePath, "utf8")).toBe(before);
    expect(callsOf(f.w.herdr, "agent", "prompt")).toHaveLength(0);

    setAgentStatus(f.w.herdr, f.pane, "idle");
    await injectWakes(f.w.ctx, await f.agents());
    expect(recordedPrompts(f.w.herdr, f.pane).map((p) => p.text)).toEqual([reasonText([f.wake], [])]);
    expect(queueNames(f.paths)).toEqual([]);
    expect(f.w.logs).toEqual([`sentinel: delivered 1 wake(s) to the opencode commander of ${f.dir} via herdr agent prompt`]);
    expect(f.codex.calls()).toHaveLength(0);
  });
});

describe("what herdr reports idle, the screen may not be (CMDR-08 in a herdr pane)", () => {
  test("a person's unsent draft: nothing typed, the wake kept, then typed once the box is empty", async () => {
    const f = await field({ status: "idle", thread: null });
    using _w = f.w;
    setPaneText(f.w.herdr, f.pane, "› half a thought\n\n  mock-1 default · /tmp/project\n", "visible");
    await injectWakes(f.w.ctx, await f.agents());
    f.w.clock.advance(FALLBACK_MS);
    await injectWakes(f.w.ctx, await f.agents());
    expect(callsOf(f.w.herdr, "agent", "prompt")).toHaveLength(0);
    expect(queueNames(f.paths)).toEqual([`${f.id}.json`]);
    expect(f.w.logs.at(-1)).toBe(`sentinel: codex commander of ${f.dir} not reached: herdr pane ${f.pane}: the commander is holding unsent text in its input line (wakes kept, retried every pass)`);

    setPaneText(f.w.herdr, f.pane, EMPTY.codex, "visible");
    await injectWakes(f.w.ctx, await f.agents());
    expect(recordedPrompts(f.w.herdr, f.pane).map((p) => p.text)).toEqual([reasonText([f.wake], [])]);
    expect(queueNames(f.paths)).toEqual([]);
  });

  test("a busy screen, or a folder-trust dialog herdr takes for idle: nothing typed, not even claimed", async () => {
    const f = await field({ harness: "opencode", status: "idle" });
    using _w = f.w;
    const before = readFileSync(f.wakePath, "utf8");
    setPaneText(f.w.herdr, f.pane, `${EMPTY.opencode}  ■■■⬝⬝  esc interrupt\n`, "visible");
    await injectWakes(f.w.ctx, await f.agents());
    expect(readFileSync(f.wakePath, "utf8")).toBe(before);

    const g = await field({ status: "idle", thread: null });
    using _g = g.w;
    // Codex 0.171's trust screen, as a herdr pane shows it: its option row starts with Codex's own mark.
    setPaneText(g.w.herdr, g.pane, "  Trust this folder?\n\n› 1. Trust and continue\n  2. Back to Agent Command Center\n\n  enter continue · esc back\n", "visible");
    g.w.clock.advance(FALLBACK_MS);
    await injectWakes(g.w.ctx, await g.agents());
    g.w.clock.advance(FALLBACK_MS);
    await injectWakes(g.w.ctx, await g.agents());
    expect(callsOf(g.w.herdr, "agent", "prompt")).toHaveLength(0);
    expect(queueNames(g.paths)).toEqual([`${g.id}.json`]);
  });
});

describe("the pass's agent list for the injector (SEN-05)", () => {
  test("pending wakes plus a registered hook-less commander make the one agent list, and the pass returns it", async () => {
    const f = await field();
    using _w = f.w;
    const result = await runPass(f.w.ctx);
    expect(callsOf(f.w.herdr, "agent", "list")).toHaveLength(1);
    expect(result.agents?.map((a) => a.pane_id)).toEqual([f.pane]);

    const g = await field({ register: false });
    using _g = g.w;
    expect((await runPass(g.w.ctx)).agents).toBeUndefined();
    expect(callsOf(g.w.herdr, "agent", "list")).toHaveLength(0);
  });

  test("a registered commander with an empty queue needs no agent list; a forum wake alone does", async () => {
    const f = await field();
    using _w = f.w;
    unlinkSync(f.wakePath);
    await runPass(f.w.ctx);
    expect(callsOf(f.w.herdr, "agent", "list")).toHaveLength(0);
    writeForumWake(f.paths, { session: "s1", file: "notes.md", count: 1, ended: false, detectedAt: T0 });
    await runPass(f.w.ctx);
    expect(callsOf(f.w.herdr, "agent", "list")).toHaveLength(1);
  });
});
