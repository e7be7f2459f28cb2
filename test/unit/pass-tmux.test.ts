// The sentinel's pass over tmux soldiers (TMX-04/05/06): one list-panes per server per pass, the latest
// `vx report` as the status, capture-pane reads, and section 7 applied unchanged.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeSoldierState } from "../../src/state/soldier-state";
import { tmuxBackend } from "../../src/backends/tmux/survey";
import { TmuxError, createTmuxClient, defaultSocket, ensureSocketDir } from "../../src/backends/tmux/client";
import { acquireCamp } from "../../src/camps/pool";
import { realExec } from "../../src/exec";
import { TRAILER } from "../../src/lifecycle/evidence";
import { NOTE_TMUX_GONE } from "../../src/backends/tmux";
import { ABANDONED_REASON } from "../../src/backends/leftovers";
import { killLeftSession } from "../../src/backends/tmux/leftovers";
import { runPass } from "../../src/sentinel/pass";
import type { ProjectPaths } from "../../src/state/paths";
import { loadTask } from "../../src/state/tasks";
import { callsOf, createWorkspace } from "../fakes/herdr-control";
import { memoryTmux } from "../fakes/tmux-memory";
import { alive, waitFor } from "../helpers";
import { finishedTmuxMission, iso, taskId, tmuxWorld, world } from "../sentinel-kit";

const report = (paths: ProjectPaths, id: string, state: "working" | "idle" | "blocked", at: number) => writeSoldierState(paths, { task_id: id, state, at: iso(at), source: "claude" });

describe("sentinel pass: tmux soldiers", () => {
  test("a session gone for the not-found window: interrupted with the tmux note and a wake; no herdr call", async () => {
    using w = tmuxWorld();
    const { paths } = w.addProject();
    const t = w.writeTask(paths, { id: taskId(), backend: "tmux", tmux_target: "vx-gone" });
    await runPass(w.ctx);
    expect(loadTask(paths, t.id)?.value.agent_not_found_since).toBe(iso(w.clock.now()));
    w.clock.advance(10_000);
    await runPass(w.ctx);
    const done = loadTask(paths, t.id)?.value;
    expect(done).toMatchObject({ status: "interrupted", output: NOTE_TMUX_GONE });
    expect(JSON.parse(readFileSync(join(paths.wakesDir, `${t.id}.json`), "utf8"))).toMatchObject({ new_status: "interrupted", note: NOTE_TMUX_GONE });
    expect(w.tmux.calls.filter((c) => c === "list-panes")).toHaveLength(2);
    expect(callsOf(w.herdr, "agent", "list")).toHaveLength(0);
  });

  test("a plain shell in the foreground or a dead pane is a soldier not found", async () => {
    using w = tmuxWorld();
    const { paths } = w.addProject();
    w.tmux.add("vx-shell", { command: "bash" });
    w.tmux.add("vx-dead", { dead: true });
    const a = w.writeTask(paths, { id: taskId(), backend: "tmux", tmux_target: "vx-shell" });
    const b = w.writeTask(paths, { id: taskId(), backend: "tmux", tmux_target: "vx-dead" });
    await runPass(w.ctx);
    for (const t of [a, b]) expect(loadTask(paths, t.id)?.value.agent_not_found_since).toBe(iso(w.clock.now()));
  });

  test("idle reported, a commit in the camp: done after a stable read of capture-pane", async () => {
    using w = tmuxWorld();
    const project = w.addProject();
    const { paths } = project;
    const id = await finishedTmuxMission(w, project);
    report(paths, id, "working", w.clock.now() - 50_000);
    await runPass(w.ctx);
    expect(loadTask(paths, id)?.value.status).toBe("running");
    report(paths, id, "idle", w.clock.now());
    await runPass(w.ctx);
    const t = loadTask(paths, id)?.value;
    expect(t).toMatchObject({ status: "done", output: `> prompt\n${TRAILER}\n⏺ Fixed it and committed.` });
    expect(w.tmux.calls.filter((c) => c === "capture-pane").length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(readFileSync(join(paths.wakesDir, `${id}.json`), "utf8"))).toMatchObject({ new_status: "done" });
  });

  test("blocked reported: a decision from the visible screen and a wake", async () => {
    using w = tmuxWorld();
    const { paths } = w.addProject();
    const id = taskId();
    w.tmux.add("vx-b", { text: "Do you want to make this edit?\n❯ 1. Yes\n  2. No\n" });
    w.writeTask(paths, { id, backend: "tmux", tmux_target: "vx-b" });
    report(paths, id, "blocked", w.clock.now());
    await runPass(w.ctx);
    const t = loadTask(paths, id)?.value;
    expect(t?.status).toBe("blocked");
    expect(t?.decision).toMatchObject({ kind: "modal", options: ["Yes", "No"] });
  });

  test("a running task with no report (CMD-REPORT-03 took a stale one away): judged from its pane, a spinner holds it, a question blocks it", async () => {
    using w = tmuxWorld();
    const { paths } = w.addProject();
    w.tmux.add("vx-busy", { text: `${TRAILER}\n✻ Tempering… (12s · esc to interrupt)\n` });
    w.tmux.add("vx-ask", { text: `${TRAILER}\nneeds-decision: keep the old API or drop it?\n` });
    const held = w.writeTask(paths, { id: taskId(), backend: "tmux", tmux_target: "vx-busy" });
    const asked = w.writeTask(paths, { id: taskId(), backend: "tmux", tmux_target: "vx-ask" });
    const at = w.clock.now();
    await runPass(w.ctx);
    expect(loadTask(paths, held.id)?.value).toMatchObject({ status: "running", held_running_since: iso(at) });
    expect(loadTask(paths, asked.id)?.value).toMatchObject({ status: "blocked", decision: { question: "keep the old API or drop it?", kind: "prose" } });
  });

  test("reopen needs a working report newer than updated_at", async () => {
    using w = tmuxWorld();
    const { dir, paths } = w.addProject();
    const id = taskId();
    await acquireCamp(paths, { project: dir, taskId: id, base: "main", exec: realExec });
    w.tmux.add("vx-r");
    const t = w.writeTask(paths, { id, status: "done", backend: "tmux", tmux_target: "vx-r" });
    report(paths, id, "working", Date.parse(t.updated_at) - 1000);
    await runPass(w.ctx);
    expect(loadTask(paths, id)?.value.status).toBe("done");
    report(paths, id, "working", w.clock.now());
    await runPass(w.ctx);
    expect(loadTask(paths, id)?.value.status).toBe("running");
  });

  test("tmux missing from PATH skips the tmux tasks, logged once; herdr tasks are still watched", async () => {
    using w = tmuxWorld();
    w.tmux.missing = true;
    const { paths } = w.addProject();
    createWorkspace(w.herdr);
    const t = w.writeTask(paths, { id: taskId(), backend: "tmux", tmux_target: "vx-x" });
    const h = w.writeTask(paths, { id: taskId(), herdr_agent_name: "vx-gone" });
    await runPass(w.ctx);
    w.clock.advance(20_000);
    await runPass(w.ctx);
    expect(loadTask(paths, t.id)?.value).toEqual(t);
    expect(loadTask(paths, h.id)?.value.status).toBe("interrupted");
    expect(w.logs.filter((l) => l.includes("tmux not found in PATH"))).toEqual(["sentinel: tmux unavailable: tmux not found in PATH"]);
  });

  test("one list-panes per server the judged tasks live on; each task is looked for on its own server only", async () => {
    using w = world();
    const work = memoryTmux("/run/work.sock");
    const home = memoryTmux();
    const other = memoryTmux("/run/other.sock");
    const servers = new Map([
      [work.socket, work],
      [other.socket, other],
    ]);
    w.ctx.backends = { tmux: tmuxBackend((socket) => servers.get(socket) ?? home) };
    const { paths } = w.addProject();
    const [ia, ib, ic] = [taskId(), taskId(), taskId()];
    const there = work.add("vx-a", { tag: ia });
    const here = home.add("vx-b", { tag: ib });
    const a = w.writeTask(paths, { id: ia, backend: "tmux", tmux_target: "vx-a", tmux_socket: work.socket, tmux_session_id: there.id, tmux_pane_id: there.paneId });
    const b = w.writeTask(paths, { id: ib, backend: "tmux", tmux_target: "vx-b", tmux_session_id: here.id, tmux_pane_id: here.paneId });
    // Recorded on the other server: the same ids here are another session, never it.
    const c = w.writeTask(paths, { id: ic, backend: "tmux", tmux_target: "vx-c", tmux_socket: "/run/other.sock", tmux_session_id: here.id, tmux_pane_id: here.paneId });
    await runPass(w.ctx);
    expect(work.calls.filter((x) => x === "list-panes")).toHaveLength(1);
    expect(home.calls.filter((x) => x === "list-panes")).toHaveLength(1);
    expect(other.calls.filter((x) => x === "list-panes")).toHaveLength(1);
    expect(loadTask(paths, a.id)?.value.agent_not_found_since).toBeUndefined();
    expect(loadTask(paths, b.id)?.value.agent_not_found_since).toBeUndefined();
    expect(loadTask(paths, c.id)?.value.agent_not_found_since).toBe(iso(w.clock.now()));
  });

  test("a stuck server skips only its own tasks, logged once per change; the other servers' tasks are judged", async () => {
    using w = world();
    const stuck = memoryTmux("/run/stuck.sock");
    const fine = memoryTmux("/run/fine.sock");
    const servers = new Map([
      [stuck.socket, stuck],
      [fine.socket, fine],
    ]);
    w.ctx.backends = { tmux: tmuxBackend((socket) => servers.get(socket)!) };
    stuck.stuck = new TmuxError("failed", "tmux list-panes timed out", ["tmux", "list-panes"]);
    const { paths } = w.addProject();
    const [ia, ib] = [taskId(), taskId()];
    const held = stuck.add("vx-a", { tag: ia });
    const a = w.writeTask(paths, { id: ia, backend: "tmux", tmux_target: "vx-a", tmux_socket: stuck.socket, tmux_session_id: held.id, tmux_pane_id: held.paneId });
    const b = w.writeTask(paths, { id: ib, backend: "tmux", tmux_target: "vx-gone", tmux_socket: fine.socket, tmux_session_id: "$7", tmux_pane_id: "%7" });
    await runPass(w.ctx);
    w.clock.advance(20_000);
    await runPass(w.ctx);
    // Never taken for gone: the task on the stuck server is untouched, the other one judged.
    expect(loadTask(paths, a.id)?.value).toEqual(a);
    expect(loadTask(paths, b.id)?.value).toMatchObject({ status: "interrupted", output: NOTE_TMUX_GONE });
    const said = (l: string) => l.includes("/run/stuck.sock") && l.includes("tmux list-panes timed out");
    expect(w.logs.filter(said)).toHaveLength(1);
    // It answers again, then fails again: forgotten, so logged again.
    stuck.stuck = undefined;
    await runPass(w.ctx);
    stuck.stuck = new TmuxError("failed", "tmux list-panes timed out", ["tmux", "list-panes"]);
    await runPass(w.ctx);
    expect(w.logs.filter(said)).toHaveLength(2);
  });

  test("a task from before sockets were recorded and a new one on the same default server: one list-panes", async () => {
    using w = world();
    const home = memoryTmux("/run/home.sock");
    // No socket is tmux's own choice: here the same default server.
    w.ctx.backends = { tmux: tmuxBackend((socket) => (socket === undefined || socket === home.socket ? home : memoryTmux(socket)), home.socket) };
    const { paths } = w.addProject();
    const [ia, ib] = [taskId(), taskId()];
    const old = home.add("vx-old");
    const now = home.add("vx-new", { tag: ib });
    const a = w.writeTask(paths, { id: ia, backend: "tmux", tmux_target: "vx-old" });
    const b = w.writeTask(paths, { id: ib, backend: "tmux", tmux_target: "vx-new", tmux_socket: home.socket, tmux_session_id: now.id, tmux_pane_id: now.paneId });
    expect(old.tag).toBe("");
    await runPass(w.ctx);
    expect(home.calls.filter((x) => x === "list-panes")).toHaveLength(1);
    for (const t of [a, b]) expect(loadTask(paths, t.id)?.value.agent_not_found_since).toBeUndefined();
  });

  test("a session that took a task's name, or (its server restarted) its very ids, is not its soldier", async () => {
    using w = tmuxWorld();
    const { paths } = w.addProject();
    const later = w.tmux.add("vx-same", { tag: taskId() });
    const byName = w.writeTask(paths, { id: taskId(), backend: "tmux", tmux_target: "vx-same", tmux_session_id: "$99", tmux_pane_id: "%99" });
    const byIds = w.writeTask(paths, { id: taskId(), backend: "tmux", tmux_target: "vx-same", tmux_session_id: later.id, tmux_pane_id: later.paneId });
    const own = w.tmux.add("vx-own");
    const ownTask = w.writeTask(paths, { id: taskId(), backend: "tmux", tmux_target: "vx-own", tmux_session_id: own.id, tmux_pane_id: own.paneId });
    own.tag = ownTask.id;
    await runPass(w.ctx);
    for (const t of [byName, byIds]) expect(loadTask(paths, t.id)?.value.agent_not_found_since).toBe(iso(w.clock.now()));
    expect(loadTask(paths, ownTask.id)?.value.agent_not_found_since).toBeUndefined();
  });

  test("an abandoned tmux launch: its session, verified as the task's, is killed and the task failed; another task's session is left", async () => {
    using w = tmuxWorld();
    w.ctx.closeLeft = { tmux: (_deps, task) => killLeftSession(w.tmux, task) };
    const { paths } = w.addProject();
    const left = w.writeTask(paths, { id: taskId(), status: "pending", backend: "tmux", tmux_target: "vx-left", camp_path: "/camps/1" });
    w.tmux.add("vx-left", { path: "/camps/1", env: { VX_TASK_ID: left.id } });
    const named = w.writeTask(paths, { id: taskId(), status: "pending", backend: "tmux", tmux_target: "vx-taken", camp_path: "/camps/2" });
    w.tmux.add("vx-taken", { path: "/camps/2", env: { VX_TASK_ID: taskId() } });
    await runPass(w.ctx);
    expect(w.tmux.sessions.has("vx-left")).toBe(false);
    expect(w.tmux.sessions.has("vx-taken")).toBe(true);
    for (const t of [left, named]) expect(loadTask(paths, t.id)?.value).toMatchObject({ status: "failed", output: `[vexillum] ${ABANDONED_REASON} - marked failed.` });
    expect(w.logs.some((l) => l.includes(`${left.id}`) && l.includes("closed its tmux session vx-left"))).toBe(true);
  });

  test("real tmux: a restarted server hands the ended soldier's ids to a later one, which is still not it", async () => {
    using w = world();
    const env = { PATH: w.env.PATH!, HOME: w.home, TMUX_TMPDIR: w.home, TERM: "xterm-256color" };
    const socket = defaultSocket(env);
    ensureSocketDir(socket);
    const tmux = createTmuxClient({ exec: realExec, env, socket });
    w.ctx.backends = { tmux: tmuxBackend((s) => createTmuxClient({ exec: realExec, env, socket: s })) };
    try {
      const { paths } = w.addProject();
      const [a, b] = [taskId(), taskId()];
      const first = await tmux.newSession({ name: "vx-fix", cwd: w.home, env: { VX_TASK_ID: a }, argv: ["cat", "-"], tag: a });
      const task = w.writeTask(paths, { id: a, backend: "tmux", tmux_target: "vx-fix", tmux_socket: socket, tmux_session_id: first.sessionId, tmux_pane_id: first.paneId });
      report(paths, a, "working", w.clock.now());
      // A's session ends with its server; B's starts a new server, which counts from $0 and %0 again.
      const server = Number(Bun.spawnSync(["tmux", "-S", socket, "display-message", "-p", "#{pid}"], { env, stdout: "pipe" }).stdout.toString());
      expect(await tmux.killSession(first.sessionId)).toBe(true);
      // The server exits on its own a moment after its last session: a session made before then
      // would be its third ($1, %1), not a new server's first.
      await waitFor(() => !alive(server), 10_000, "the first tmux server to exit");
      const second = await tmux.newSession({ name: "vx-fix", cwd: w.home, env: { VX_TASK_ID: b }, argv: ["cat", "-"], tag: b });
      expect(second).toEqual(first);
      await runPass(w.ctx);
      w.clock.advance(10_000);
      await runPass(w.ctx);
      expect(loadTask(paths, task.id)?.value).toMatchObject({ status: "interrupted", output: NOTE_TMUX_GONE });
    } finally {
      Bun.spawnSync(["tmux", "-S", socket, "kill-server"], { env, stdout: "ignore", stderr: "ignore" });
    }
  });
});
