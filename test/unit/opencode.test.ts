// The sentinel's OpenCode injector (CMDR-08) against the fake herdr and a fake `opencode`, and the
// pass's agent list made for it (SEN-05).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { registerAwaiter } from "../../src/awaiters/registry";
import type { AgentInfo } from "../../src/backends/herdr";
import { injectOpencode } from "../../src/commanders/opencode";
import { apiFailure, latestRootSession, opencodeArgv, promptBody } from "../../src/commanders/opencode-cli";
import { runPass } from "../../src/sentinel/pass";
import { type ProjectPaths, rootPaths } from "../../src/state/paths";
import type { SoldierWake } from "../../src/state/schemas";
import { writeForumWake, writeSoldierWake } from "../../src/wakes/queue";
import { reasonText } from "../../src/wakes/reason";
import { addAgent, callsOf, createWorkspace, recordedPrompts, setAgentStatus, updateState } from "../fakes/herdr-control";
import { installFakeOpencode } from "../fakes/opencode";
import { writeExecutable } from "../helpers";
import { T0, iso, taskId, world } from "../sentinel-kit";

const FALLBACK_MS = 30_000;

/** A project with a live opencode commander, a done task and its pending wake. */
async function field(opts: { status?: "working" | "idle" | "done"; register?: boolean } = {}) {
  const w = world();
  const { dir, paths } = w.addProject();
  const ws = createWorkspace(w.herdr, { cwd: dir });
  addAgent(w.herdr, ws.pane_id, { kind: "opencode", status: opts.status ?? "working" });
  if (opts.register !== false) {
    const commanders = {
      schema_version: 1,
      commanders: {
        opencode: { herdr_pane_id: ws.pane_id, herdr_workspace_id: ws.workspace_id, project_path: dir, registered_at: iso(T0) },
      },
    };
    writeFileSync(paths.commandersFile, JSON.stringify(commanders, null, 2));
  }
  const id = taskId();
  w.writeTask(paths, { id, status: "done" });
  const wake: SoldierWake = { task_id: id, kind: "mission", old_status: "running", new_status: "done", detected_at: iso(T0 + 1000) };
  const wakePath = writeSoldierWake(paths.wakesDir, wake);
  const opencode = installFakeOpencode(w.bin);
  const agents = async (session?: AgentInfo["agent_session"]) => {
    // The commander's OpenCode integration reported its native session to herdr.
    updateState(w.herdr, (s) => {
      const agent = s.panes.find((p) => p.pane_id === ws.pane_id)?.agent;
      if (agent) agent.agent_session = session as never;
    });
    return w.ctx.ops.herdr.agentList();
  };
  return { w, dir, paths, pane: ws.pane_id, id, wake, wakePath, opencode, agents };
}

const queueNames = (paths: ProjectPaths) => readdirSync(paths.wakesDir).filter((n) => !n.startsWith("."));
const readJson = (p: string) => JSON.parse(readFileSync(p, "utf8"));
const SESSION = { source: "herdr", agent: "opencode", kind: "id", value: "ses_commander1" };

const spawned: Bun.Subprocess[] = [];
afterEach(() => {
  for (const p of spawned.splice(0)) p.kill();
});

describe("OpenCode injection (CMDR-08)", () => {
  test("posts once to herdr's agent_session with a queued prompt, deletes the claims and logs", async () => {
    const f = await field();
    using _w = f.w;
    writeForumWake(f.paths, { session: "s1", file: "notes.md", count: 1, ended: false, detectedAt: T0 + 2000 });
    mkdirSync(join(f.paths.forumInboxDir, "s1"), { recursive: true });
    const msg = { uid: "u1", session: "s1", file: "notes.md", text: "hi", received_at: iso(T0 + 2000) };
    writeFileSync(join(f.paths.forumInboxDir, "s1", "u1.json"), JSON.stringify(msg));
    const agents = await f.agents(SESSION);

    await injectOpencode(f.w.ctx, agents);

    const text = reasonText([f.wake], [{ session: "s1", file: "notes.md", count: 1, ended: false, detected_at: iso(T0 + 2000) }]);
    expect(text).toContain("Forum feedback is waiting for you:");
    const calls = f.opencode.calls();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.argv).toEqual(["api", "POST", "/api/session/ses_commander1/prompt", "--data", "@-"]);
    expect(calls[0]!.stdin).toBe(`{"prompt":{"text":${JSON.stringify(text)}},"delivery":"queue"}`);
    expect(calls[0]!.cwd).toBe(f.dir);
    expect(queueNames(f.paths)).toEqual(["forum"]);
    expect(readdirSync(f.paths.forumWakesDir)).toEqual([]);
    expect(f.w.logs).toEqual([`sentinel: delivered 2 wake(s) to the opencode commander of ${f.dir}`]);

    await injectOpencode(f.w.ctx, agents);
    expect(f.opencode.calls()).toHaveLength(1);
    expect(recordedPrompts(f.w.herdr)).toHaveLength(0);
  });

  test("without an agent_session it posts to the most recently updated root session of the project", async () => {
    const f = await field();
    using _w = f.w;
    const sessions = [
      { id: "ses_child", parentID: "ses_new", time: { created: 1, updated: 900 } },
      { id: "ses_old", time: { created: 1, updated: 100 } },
      { id: "ses_new", parentID: null, time: { created: 1, updated: 500 } },
    ];
    f.opencode.answer({ GET: { stdout: JSON.stringify({ data: sessions, cursor: {} }) } });

    await injectOpencode(f.w.ctx, await f.agents({ source: "herdr", agent: "opencode", kind: "path", value: "/x/y.json" }));

    const calls = f.opencode.calls();
    expect(calls.map((c) => c.argv.slice(0, 3))).toEqual([
      ["api", "GET", `/api/session?directory=${encodeURIComponent(f.dir)}`],
      ["api", "POST", "/api/session/ses_new/prompt"],
    ]);
    expect(JSON.parse(calls[1]!.stdin)).toEqual({ prompt: { text: reasonText([f.wake], []) }, delivery: "queue" });
    expect(queueNames(f.paths)).toEqual([]);
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

    await injectOpencode(f.w.ctx, await f.agents(SESSION));
    expect(f.opencode.calls()).toHaveLength(0);
    expect(queueNames(f.paths)).toEqual([`${f.id}.json`]);

    proc.kill();
    await proc.exited;
    await injectOpencode(f.w.ctx, await f.agents(SESSION));
    expect(f.opencode.calls()).toHaveLength(1);
  });

  test("nothing is claimed when the commander is not live, not registered, or herdr gave no list", async () => {
    const f = await field();
    using _w = f.w;
    const before = readFileSync(f.wakePath, "utf8");
    await injectOpencode(f.w.ctx, undefined);
    await injectOpencode(f.w.ctx, []);
    // Another kind of agent in the registered pane is not an opencode commander.
    const other = (await f.agents()).map((a) => ({ ...a, agent: "claude" }));
    await injectOpencode(f.w.ctx, other);
    expect(f.opencode.calls()).toHaveLength(0);
    expect(readFileSync(f.wakePath, "utf8")).toBe(before);

    const g = await field({ register: false });
    using _g = g.w;
    await injectOpencode(g.w.ctx, await g.agents(SESSION));
    expect(g.opencode.calls()).toHaveLength(0);
    expect(queueNames(g.paths)).toEqual([`${g.id}.json`]);
  });

  test("a failure stamps delivery_failing_since once, puts the wake back and logs once", async () => {
    const f = await field();
    using _w = f.w;
    f.opencode.answer({ POST: { code: 1, stdout: '{"error":"conflict"}', stderr: "HTTP 409 Conflict\n" } });
    // A field from a newer vx rides along untouched (STA-06).
    writeFileSync(f.wakePath, JSON.stringify({ ...f.wake, x_future: [1] }, null, 2));
    const agents = await f.agents(SESSION);
    const first = f.w.clock.now();

    await injectOpencode(f.w.ctx, agents);
    expect(queueNames(f.paths)).toEqual([`${f.id}.json`]);
    expect(readJson(f.wakePath)).toEqual({ ...f.wake, delivery_failing_since: iso(first), x_future: [1] });

    f.w.clock.advance(5000);
    await injectOpencode(f.w.ctx, agents);
    expect(f.opencode.calls()).toHaveLength(2);
    expect(readJson(f.wakePath).delivery_failing_since).toBe(iso(first));
    expect(queueNames(f.paths)).toEqual([`${f.id}.json`]);
    expect(f.w.logs).toEqual([
      `sentinel: opencode commander of ${f.dir} not reached: opencode api POST /api/session/ses_commander1/prompt failed (exit 1): HTTP 409 Conflict: {"error":"conflict"} (wakes kept, retried every pass)`,
    ]);
  });

  test("no session yet is a failure too, and the wake is kept", async () => {
    const f = await field();
    using _w = f.w;
    f.opencode.answer({ GET: { stdout: '{"data":[]}' } });
    await injectOpencode(f.w.ctx, await f.agents());
    expect(f.opencode.calls()).toHaveLength(1);
    expect(readJson(f.wakePath).delivery_failing_since).toBe(iso(f.w.clock.now()));
    expect(f.w.logs[0]).toContain(`no opencode session for ${f.dir} yet`);
  });

  test("after 30 s of failures it goes through herdr agent prompt, but only while the commander is idle or done", async () => {
    const f = await field({ status: "working" });
    using _w = f.w;
    f.opencode.answer({ POST: { code: 1, stderr: "HTTP 503 Service Unavailable\n" } });
    await injectOpencode(f.w.ctx, await f.agents(SESSION));
    f.w.clock.advance(FALLBACK_MS);

    // Working: the API is tried again, nothing is typed into the pane.
    await injectOpencode(f.w.ctx, await f.agents(SESSION));
    expect(f.opencode.calls()).toHaveLength(2);
    expect(callsOf(f.w.herdr, "agent", "prompt")).toHaveLength(0);
    expect(queueNames(f.paths)).toEqual([`${f.id}.json`]);

    setAgentStatus(f.w.herdr, f.pane, "idle");
    await injectOpencode(f.w.ctx, await f.agents(SESSION));
    expect(f.opencode.calls()).toHaveLength(2);
    const prompts = recordedPrompts(f.w.herdr, f.pane);
    expect(prompts.map((p) => p.text)).toEqual([reasonText([f.wake], [])]);
    const argv = callsOf(f.w.herdr, "agent", "prompt")[0]!.argv;
    expect(argv.slice(argv.indexOf("prompt"))).toEqual(["prompt", f.pane, reasonText([f.wake], [])]);
    expect(queueNames(f.paths)).toEqual([]);
    expect(f.w.logs.at(-1)).toBe(`sentinel: delivered 1 wake(s) to the opencode commander of ${f.dir} via herdr agent prompt`);
  });

  test("before 30 s an idle commander still gets the API, not the pane", async () => {
    const f = await field({ status: "idle" });
    using _w = f.w;
    f.opencode.answer({ POST: { code: 1 } });
    await injectOpencode(f.w.ctx, await f.agents(SESSION));
    f.w.clock.advance(FALLBACK_MS - 1);
    await injectOpencode(f.w.ctx, await f.agents(SESSION));
    expect(f.opencode.calls()).toHaveLength(2);
    expect(callsOf(f.w.herdr, "agent", "prompt")).toHaveLength(0);
    expect(queueNames(f.paths)).toEqual([`${f.id}.json`]);
  });

  test("a stale wake (the task moved on) is consumed and not posted", async () => {
    const f = await field();
    using _w = f.w;
    f.w.writeTask(f.paths, { id: f.id, status: "running" });
    await injectOpencode(f.w.ctx, await f.agents(SESSION));
    expect(f.opencode.calls()).toHaveLength(0);
    expect(queueNames(f.paths)).toEqual([]);
    expect(f.w.logs).toEqual([]);
  });

  test("opencode missing (exit 127) is a failure that keeps the wake", async () => {
    const f = await field();
    using _w = f.w;
    writeExecutable(join(f.w.bin, "opencode"), "#!/bin/sh\nexit 127\n");
    await injectOpencode(f.w.ctx, await f.agents(SESSION));
    expect(queueNames(f.paths)).toEqual([`${f.id}.json`]);
    expect(f.w.logs[0]).toContain("opencode not found in PATH");
  });
});

describe("the pass's agent list for the injector (SEN-05)", () => {
  test("pending wakes plus a registered opencode commander make the one agent list, and the pass returns it", async () => {
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

describe("opencode api argv and responses", () => {
  test("argv builders keep the body out of argv and encode the path parts", () => {
    expect(opencodeArgv.prompt("ses/1")).toEqual(["opencode", "api", "POST", "/api/session/ses%2F1/prompt", "--data", "@-"]);
    expect(opencodeArgv.sessions("/a b/c")).toEqual(["opencode", "api", "GET", "/api/session?directory=%2Fa%20b%2Fc"]);
    expect(promptBody('say "hi"\n')).toBe('{"prompt":{"text":"say \\"hi\\"\\n"},"delivery":"queue"}');
  });

  test("the latest root session from {data: [...]} or a bare array; none when empty or unreadable", () => {
    const list = [
      { id: "a", time: { updated: 10 } },
      { id: "b", parentID: "a", time: { updated: 30 } },
      { id: "c", time: { updated: 20 } },
    ];
    expect(latestRootSession(JSON.stringify({ data: list }))).toBe("c");
    expect(latestRootSession(JSON.stringify(list))).toBe("c");
    expect(latestRootSession('{"data":[]}')).toBeUndefined();
    expect(latestRootSession("not json")).toBeUndefined();
    expect(latestRootSession('{"data":[{"id":"b","parentID":"a"}]}')).toBeUndefined();
  });

  test("failures name the call, the status line and the body; a missing program says so", () => {
    const argv = opencodeArgv.sessions("/p");
    expect(apiFailure(argv, { code: 1, stdout: '{"error":"x"}\n', stderr: "HTTP 401 Unauthorized\n" })).toBe(
      'opencode api GET /api/session failed (exit 1): HTTP 401 Unauthorized: {"error":"x"}',
    );
    expect(apiFailure(argv, { code: 127, stdout: "", stderr: "" })).toBe("opencode not found in PATH");
    expect(apiFailure(argv, { code: 124, stdout: "", stderr: "" })).toBe("opencode api GET /api/session did not finish in time");
  });
});
