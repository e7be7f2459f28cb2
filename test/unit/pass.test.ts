// One sentinel pass against the real fake herdr (SEN-04/05/08/10/11/14/20, WAK-02/05, STA-07, SEN-25).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireCamp } from "../../src/camps/pool";
import { runPass } from "../../src/sentinel/pass";
import { NOTE_AGENT_GONE } from "../../src/backends/herdr";
import { loadTask, taskPath } from "../../src/state/tasks";
import { realExec } from "../../src/exec";
import { TRAILER } from "../../src/lifecycle/evidence";
import { addAgent, callsOf, createWorkspace, setPaneText, stopServer } from "../fakes/herdr-control";
import { git, writeExecutable } from "../helpers";
import { T0, iso, taskId, world } from "../sentinel-kit";

const wakes = (dir: string) => {
  try {
    return readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
};
const readJson = (p: string) => JSON.parse(readFileSync(p, "utf8"));

describe("sentinel pass", () => {
  test("a broken wakes/ is logged once, and the project's tasks are still watched", async () => {
    using w = world();
    const { paths } = w.addProject();
    createWorkspace(w.herdr, { cwd: w.root });
    writeFileSync(paths.wakesDir, "not a directory");
    const id = taskId();
    w.writeTask(paths, { id, herdr_agent_name: "vx-gone" });
    await runPass(w.ctx);
    w.clock.advance(5000);
    await runPass(w.ctx);
    const errors = w.logs.filter((l) => l.includes("tick error"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toStartWith(`sentinel: tick error: ${paths.key}: `);
    // Its soldier is gone from herdr: the not-found window has started despite the broken queue.
    expect(loadTask(paths, id)?.value.agent_not_found_since).toBeDefined();
  });

  test("one herdr agent list for every running task of every project; none when nothing runs", async () => {
    using w = world();
    const ws = createWorkspace(w.herdr, { cwd: w.addProject().dir });
    for (const name of ["a", "b", "c"]) {
      const { paths } = w.addProject(name);
      for (let i = 0; i < 4; i++) {
        const id = taskId();
        const agent = `vx-${name}-${i}`;
        const pane = (await import("../fakes/herdr-control")).createTab(w.herdr, ws.workspace_id).pane_id;
        addAgent(w.herdr, pane, { name: agent, kind: "claude", status: "working" });
        w.writeTask(paths, { id, herdr_agent_name: agent, herdr_pane_id: pane });
      }
    }
    await runPass(w.ctx);
    expect(callsOf(w.herdr, "agent", "list")).toHaveLength(1);
    expect(callsOf(w.herdr, "agent", "read")).toHaveLength(0);
    await runPass(w.ctx);
    expect(callsOf(w.herdr, "agent", "list")).toHaveLength(2);

    using idle = world();
    const { paths } = idle.addProject();
    idle.writeTask(paths, { id: taskId(), status: "done" });
    await runPass(idle.ctx);
    expect(callsOf(idle.herdr, "agent", "list")).toHaveLength(0);
  });

  test("herdr down, missing or unparsable: no mark changes, logged once per distinct error", async () => {
    using w = world();
    const { paths } = w.addProject();
    const t = w.writeTask(paths, { id: taskId(), herdr_agent_name: "vx-x" });
    const before = readFileSync(taskPath(paths, t.id), "utf8");
    stopServer(w.herdr);
    await runPass(w.ctx);
    await runPass(w.ctx);
    expect(w.logs.filter((l) => l.startsWith("sentinel: herdr unavailable:"))).toHaveLength(1);
    expect(w.logs[0]).toContain("server_not_running");
    writeExecutable(join(w.bin, "herdr"), "#!/bin/sh\necho 'not json at all'\n");
    await runPass(w.ctx);
    expect(w.logs.filter((l) => l.startsWith("sentinel: herdr unavailable:"))).toHaveLength(2);
    w.ctx.env.PATH = "/usr/bin:/bin";
    await runPass(w.ctx);
    expect(w.logs.filter((l) => l.startsWith("sentinel: herdr unavailable:"))).toHaveLength(3);
    expect(readFileSync(taskPath(paths, t.id), "utf8")).toBe(before);
  });

  test("a corrupt task file is logged once and skipped, never rewritten; other projects are served", async () => {
    using w = world();
    const a = w.addProject("a");
    const b = w.addProject("b");
    const bad = taskPath(a.paths, "aaaaaaaaaaaaaaaa");
    writeFileSync(bad, "{oops");
    const t = w.writeTask(b.paths, { id: taskId(), herdr_agent_name: "vx-gone" });
    createWorkspace(w.herdr);
    await runPass(w.ctx);
    await runPass(w.ctx);
    expect(w.logs.filter((l) => l.includes(bad))).toHaveLength(1);
    expect(readFileSync(bad, "utf8")).toBe("{oops");
    expect(loadTask(b.paths, t.id)?.value.agent_not_found_since).toBeDefined();
  });

  test("not found for 10 s: interrupted with its note and a wake; a blip clears the mark", async () => {
    using w = world();
    const { paths } = w.addProject();
    const ws = createWorkspace(w.herdr);
    const t = w.writeTask(paths, { id: taskId(), herdr_agent_name: "vx-lost", herdr_pane_id: ws.pane_id });
    await runPass(w.ctx);
    const marked = loadTask(paths, t.id)?.value;
    expect(marked?.agent_not_found_since).toBe(iso(w.clock.now()));
    addAgent(w.herdr, ws.pane_id, { name: "vx-lost", kind: "claude", status: "working" });
    w.clock.advance(5000);
    await runPass(w.ctx);
    expect(loadTask(paths, t.id)?.value.agent_not_found_since).toBeUndefined();
    (await import("../fakes/herdr-control")).removeAgent(w.herdr, "vx-lost");
    await runPass(w.ctx);
    w.clock.advance(10_000);
    await runPass(w.ctx);
    const done = loadTask(paths, t.id)?.value;
    expect(done?.status).toBe("interrupted");
    expect(done?.output).toBe(NOTE_AGENT_GONE);
    const wake = readJson(join(paths.wakesDir, `${t.id}.json`));
    expect(wake).toMatchObject({ task_id: t.id, kind: "mission", old_status: "running", new_status: "interrupted", note: NOTE_AGENT_GONE });
    expect(w.logs).toContain(`sentinel: mission ${t.id} (${paths.key}): running -> interrupted`);
    expect(w.logs).toContain("sentinel: recorded 1 wake(s)");
  });

  test("a task a lifecycle command is working on is not judged: no mark, no settle, until its lock is free", async () => {
    using w = world();
    const { paths } = w.addProject();
    const ws = createWorkspace(w.herdr);
    // herdr is still starting the soldier's agent: nothing in the pane yet, long past every window.
    const t = w.writeTask(paths, { id: taskId(), herdr_agent_name: "vx-slow", herdr_pane_id: ws.pane_id });
    const lock = join(paths.tasksDir, `.${t.id}.op.lock`);
    const holder = Bun.spawn(["bun", join(import.meta.dir, "..", "fixtures", "hold-lock.ts"), lock], { stdout: "pipe", stderr: "inherit" });
    try {
      const first = await holder.stdout.getReader().read();
      expect(new TextDecoder().decode(first.value)).toContain("locked");
      for (let i = 0; i < 6; i++) {
        await runPass(w.ctx);
        w.clock.advance(10_000);
      }
      expect(loadTask(paths, t.id)?.value).toEqual(t);
      expect(wakes(paths.wakesDir)).toEqual([]);
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }
    // The command died: the kernel dropped its lock, and the task is judged again.
    await runPass(w.ctx);
    expect(loadTask(paths, t.id)?.value.agent_not_found_since).toBe(iso(w.clock.now()));
  });

  test("a mission with a commit settles done after a stable read; wake goes to the commander's project", async () => {
    using w = world();
    const { dir, paths } = w.addProject();
    const other = w.addProject("commander-home");
    const id = taskId();
    const camp = await acquireCamp(paths, { project: dir, taskId: id, base: "main", exec: realExec });
    git(camp.path, "commit", "-q", "--allow-empty", "-m", "work");
    const ws = createWorkspace(w.herdr);
    addAgent(w.herdr, ws.pane_id, { name: "vx-m", kind: "claude", status: "done" });
    setPaneText(w.herdr, "vx-m", `> prompt\n${TRAILER}\n⏺ Fixed it and committed.\n`);
    w.writeTask(paths, {
      id,
      herdr_agent_name: "vx-m",
      herdr_pane_id: ws.pane_id,
      camp_path: camp.path,
      camp_branch: camp.branch,
      camp_base: "main",
      camp_slot: camp.slot,
      commander_project: other.dir,
    });
    await runPass(w.ctx);
    const t = loadTask(paths, id)?.value;
    expect(t?.status).toBe("done");
    expect(t?.output).toBe(`> prompt\n${TRAILER}\n⏺ Fixed it and committed.`);
    expect(wakes(paths.wakesDir)).toEqual([]);
    expect(readJson(join(other.paths.wakesDir, `${id}.json`))).toMatchObject({ new_status: "done", origin: dir });
    expect(callsOf(w.herdr, "agent", "read").length).toBeGreaterThanOrEqual(2);
  });

  test("a scout with its report: done with report_path in the wake", async () => {
    using w = world();
    const { paths } = w.addProject();
    const ws = createWorkspace(w.herdr);
    addAgent(w.herdr, ws.pane_id, { name: "vx-s", kind: "claude", status: "idle" });
    setPaneText(w.herdr, "vx-s", "report written\n");
    const id = taskId();
    w.writeTask(paths, { id, kind: "scout", herdr_agent_name: "vx-s" });
    const report = join(paths.reportsDir, `vx-s-${id}.md`);
    (await import("node:fs")).mkdirSync(paths.reportsDir, { recursive: true });
    writeFileSync(report, "# findings\n");
    await runPass(w.ctx);
    expect(readJson(join(paths.wakesDir, `${id}.json`))).toMatchObject({ kind: "scout", new_status: "done", report_path: report });
  });

  test("herdr blocked: a modal decision and a wake", async () => {
    using w = world();
    const { paths } = w.addProject();
    const ws = createWorkspace(w.herdr);
    addAgent(w.herdr, ws.pane_id, { name: "vx-q", kind: "claude", status: "blocked" });
    const dialog = ["☐ Plan", "", "Ship now?", "", "❯ 1. Yes", "  2. No", "  3. Type something.", "  4. Chat about this", "", "Enter to select · ↑/↓ to navigate · Esc to cancel"];
    setPaneText(w.herdr, "vx-q", dialog.join("\n"), "visible");
    const id = taskId();
    w.writeTask(paths, { id, herdr_agent_name: "vx-q" });
    await runPass(w.ctx);
    const t = loadTask(paths, id)?.value;
    expect(t?.status).toBe("blocked");
    expect(t?.decision).toMatchObject({ question: "Ship now?", kind: "modal", options: ["Yes", "No", "Type something.", "Chat about this"] });
    expect(wakes(paths.wakesDir)).toEqual([`${id}.json`]);
  });

  test("reopen: a done task whose soldier works again goes back to running, no wake", async () => {
    using w = world();
    const { dir, paths } = w.addProject();
    const id = taskId();
    const camp = await acquireCamp(paths, { project: dir, taskId: id, base: "main", exec: realExec });
    const ws = createWorkspace(w.herdr);
    addAgent(w.herdr, ws.pane_id, { name: "vx-r", kind: "claude", status: "working" });
    w.writeTask(paths, { id, status: "blocked", herdr_agent_name: "vx-r", camp_path: camp.path, decision: { question: "q?", options: [], asked_at: iso(T0), kind: "prose" } });
    const struck = taskId();
    w.writeTask(paths, { id: struck, status: "done", herdr_agent_name: "vx-r" });
    await runPass(w.ctx);
    const t = loadTask(paths, id)?.value;
    expect(t?.status).toBe("running");
    expect(t?.decision).toMatchObject({ answer: "(answered in the pane)", answered_at: iso(w.clock.now()) });
    expect(loadTask(paths, struck)?.value.status).toBe("done");
    expect(wakes(paths.wakesDir)).toEqual([]);
    expect(w.logs).toContain(`sentinel: reopened mission ${id} (${paths.key}): blocked -> running (soldier working again)`);
  });

  test("a pane full of secrets: nothing unredacted reaches the task, the wake or the log", async () => {
    using w = world();
    const { paths } = w.addProject();
    const ws = createWorkspace(w.herdr);
    addAgent(w.herdr, ws.pane_id, { name: "vx-secret", kind: "claude", status: "done" });
    const secrets = [
      "export ANTHROPIC_API_KEY=sk-ant-aaaaaaaaaaaaaaaaaaaaaaaa",
      "curl -H 'Authorization: Bearer abc.def'",
      "git push https://bob:hunter2@git.example.com/r.git",
      "aws AKIAIOSFODNN7EXAMPLE",
      "-----BEGIN RSA PRIVATE KEY-----",
      "MIIEpAIBAAKCAQEA7bq98",
      "-----END RSA PRIVATE KEY-----",
      "needs-decision: rotate ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaa now?",
    ];
    setPaneText(w.herdr, "vx-secret", `${TRAILER}\n${secrets.join("\n")}\n✻ Working (3s · esc to interrupt)\n`);
    const id = taskId();
    w.writeTask(paths, { id, herdr_agent_name: "vx-secret" });
    await runPass(w.ctx);
    setPaneText(w.herdr, "vx-secret", `${TRAILER}\n${secrets.join("\n")}\n`);
    w.clock.advance(1000);
    await runPass(w.ctx);
    const disk = [readFileSync(taskPath(paths, id), "utf8"), ...wakes(paths.wakesDir).map((n) => readFileSync(join(paths.wakesDir, n), "utf8")), w.logs.join("\n")].join("\n");
    expect(loadTask(paths, id)?.value.status).toBe("blocked");
    for (const leak of ["sk-ant-", "abc.def", "hunter2", "AKIAIOSFODNN7EXAMPLE", "MIIEpAIBAAKCAQEA7bq98", "ghp_aaaa"]) expect(disk).not.toContain(leak);
  });

  test("WAK-05: a crash after the task save leaves a pending wake that the next pass commits once", async () => {
    using w = world();
    const { paths } = w.addProject();
    const id = taskId();
    w.writeTask(paths, { id, status: "done", updated_at: iso(T0 + 1000) });
    const lost = taskId();
    w.writeTask(paths, { id: lost, status: "running" });
    const { writePendingWake } = await import("../../src/wakes/queue");
    const wake = (task: string, to: "done") => ({ task_id: task, kind: "mission" as const, old_status: "running" as const, new_status: to, detected_at: iso(T0) });
    writePendingWake(paths.root, paths.wakesDir, wake(id, "done"));
    writePendingWake(paths.root, paths.wakesDir, wake(lost, "done"));
    await runPass(w.ctx);
    expect(wakes(paths.wakesDir)).toEqual([`${id}.json`]);
    expect(readdirSync(paths.wakesDir).filter((n) => n.endsWith(".pending"))).toEqual([]);
    await runPass(w.ctx);
    expect(wakes(paths.wakesDir)).toEqual([`${id}.json`]);
  });
});
