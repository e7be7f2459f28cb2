// `vx sentinel drain` with the compiled binary (AWT-01, AWT-02, WAK-06..09).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git, vx } from "../helpers";
import { queue, reasonFor, taskWithWake } from "../await-kit";

const ID = "1111111111111111";

describe("vx sentinel drain", () => {
  test("delivers a current wake once, as one JSON line, then {}", async () => {
    using q = await queue();
    taskWithWake(q, ID);
    const first = await vx(["sentinel", "drain"], { cwd: q.project, env: q.env });
    expect(first).toEqual({ code: 0, stdout: `${JSON.stringify({ decision: "block", reason: reasonFor(ID).trimEnd() })}\n`, stderr: "" });
    expect(readdirSync(q.wakes).filter((n) => !n.startsWith("forum"))).toEqual([]);
    expect(await vx(["sentinel", "drain"], { cwd: q.project, env: q.env })).toEqual({ code: 0, stdout: "{}\n", stderr: "" });
  });

  test.each([
    ["HERDR_WORKSPACE_ID unset", { HERDR_WORKSPACE_ID: "" }, "project"],
    ["not a git repository", {}, "home"],
  ])("no-op when %s: {} and nothing claimed", async (_what, env, where) => {
    using q = await queue();
    const wake = taskWithWake(q, ID);
    const r = await vx(["sentinel", "drain"], { cwd: where === "home" ? q.home : q.project, env: { ...q.env, ...env } });
    expect(r).toEqual({ code: 0, stdout: "{}\n", stderr: "" });
    expect(existsSync(wake)).toBe(true);
  });

  test("AWT-01's tmux exception: a tmux pane of a tmux-backend project is delivered to without herdr", async () => {
    using q = await queue({ HERDR_WORKSPACE_ID: "" });
    const config = join(q.project, ".vexillum", "config.json");
    const tmuxEnv = { ...q.env, TMUX: "/tmp/tmux-0/default,1,0", TMUX_PANE: "%3" };
    const wake = taskWithWake(q, ID);
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), backend: "herdr" }));
    // The backend is herdr: a tmux pane alone delivers nothing.
    expect(await vx(["sentinel", "drain"], { cwd: q.project, env: tmuxEnv })).toEqual({ code: 0, stdout: "{}\n", stderr: "" });
    expect(existsSync(wake)).toBe(true);
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), backend: "tmux" }));
    // Not in a tmux pane: nothing either.
    expect(await vx(["sentinel", "drain"], { cwd: q.project, env: q.env })).toEqual({ code: 0, stdout: "{}\n", stderr: "" });
    const r = await vx(["sentinel", "drain"], { cwd: q.project, env: tmuxEnv });
    expect(r).toEqual({ code: 0, stdout: `${JSON.stringify({ decision: "block", reason: reasonFor(ID).trimEnd() })}\n`, stderr: "" });
    expect(existsSync(wake)).toBe(false);
  });

  test("no-op inside a camp", async () => {
    using q = await queue();
    const camp = join(q.stateDir, "camps", "1", "project");
    mkdirSync(camp, { recursive: true });
    git(camp, "init", "-q");
    const wake = taskWithWake(q, ID);
    expect(await vx(["sentinel", "drain"], { cwd: camp, env: q.env })).toEqual({ code: 0, stdout: "{}\n", stderr: "" });
    expect(existsSync(wake)).toBe(true);
  });

  test("a stale wake (the task moved on) is consumed, never printed", async () => {
    using q = await queue();
    const wake = taskWithWake(q, ID, "running", "done");
    expect((await vx(["sentinel", "drain"], { cwd: q.project, env: q.env })).stdout).toBe("{}\n");
    expect(existsSync(wake)).toBe(false);
  });

  test("a wake with invalid JSON is consumed silently", async () => {
    using q = await queue();
    mkdirSync(q.wakes, { recursive: true });
    writeFileSync(join(q.wakes, `${ID}.json`), "{nope");
    expect(await vx(["sentinel", "drain"], { cwd: q.project, env: q.env })).toEqual({ code: 0, stdout: "{}\n", stderr: "" });
    expect(readdirSync(q.wakes).filter((n) => n !== "forum")).toEqual([]);
  });

  test("an unwritable stdout puts the claim back and exits 1", async () => {
    using q = await queue();
    const wake = taskWithWake(q, ID);
    const p = Bun.spawn([join(import.meta.dir, "../../dist/vx"), "sentinel", "drain"], { cwd: q.project, env: q.env, stdout: Bun.file("/dev/full"), stderr: "pipe" });
    expect(await p.exited).toBe(1);
    expect(existsSync(wake)).toBe(true);
    expect((await vx(["sentinel", "drain"], { cwd: q.project, env: q.env })).stdout).toContain(ID);
  });

  test("a claim left by a dead process is delivered after the recovery window, not before", async () => {
    using q = await queue();
    const wake = taskWithWake(q, ID);
    const claimed = `${wake}.claimed-999999-1`;
    require("node:fs").renameSync(wake, claimed);
    expect((await vx(["sentinel", "drain"], { cwd: q.project, env: { ...q.env, VX_TIME_SCALE: "1" } })).stdout).toBe("{}\n");
    expect(existsSync(claimed)).toBe(true);
    const old = new Date(Date.now() - 3 * 60_000);
    utimesSync(claimed, old, old);
    expect((await vx(["sentinel", "drain"], { cwd: q.project, env: { ...q.env, VX_TIME_SCALE: "1" } })).stdout).toContain(ID);
    expect(existsSync(claimed)).toBe(false);
  });

  test("a wake routed from another project names it and is judged against that project's task", async () => {
    using q = await queue();
    const { projectKey } = await import("../../src/state/paths");
    const other = { project: join(q.project, "..", "other-project") };
    // The soldier's task lives in the other project's state dir, under the same HOME.
    const originState = join(q.root, "projects", projectKey(other.project));
    mkdirSync(join(originState, "tasks"), { recursive: true });
    writeFileSync(
      join(originState, "tasks", `${ID}.json`),
      JSON.stringify({ id: ID, schema_version: 1, kind: "scout", prompt: "p", status: "done", created_at: "2026-11-30T10:00:00Z", updated_at: "2026-11-30T10:00:00Z" }),
    );
    mkdirSync(q.wakes, { recursive: true });
    const wake = {
      task_id: ID,
      kind: "scout",
      old_status: "running",
      new_status: "done",
      detected_at: "2026-11-30T10:00:01Z",
      report_path: "/r/vx-a-1.md",
      origin: other.project,
      note: "[vexillum] n",
    };
    writeFileSync(join(q.wakes, `${ID}.json`), JSON.stringify(wake));
    const reason = JSON.parse((await vx(["sentinel", "drain"], { cwd: q.project, env: q.env })).stdout).reason as string;
    expect(reason).toBe(
      `A vexillum soldier's status changed:\n- scout ${ID}: running -> done\n  project: ${other.project}\n  report: /r/vx-a-1.md\n  note: [vexillum] n\nCheck on it (and report to the general, or land/strike as appropriate) before ending your turn.`,
    );
  });

  test("routed wakes name their project; forum and soldier sections together", async () => {
    using q = await queue();
    taskWithWake(q, ID);
    const inbox = join(q.stateDir, "forum-inbox", "s1");
    mkdirSync(inbox, { recursive: true });
    writeFileSync(join(inbox, "u1.json"), JSON.stringify({ uid: "u1", session: "s1", file: "/p/plan.html", text: "hi", received_at: "2026-11-30T10:00:00Z" }));
    mkdirSync(join(q.wakes, "forum"), { recursive: true });
    writeFileSync(join(q.wakes, "forum", "s1.json"), JSON.stringify({ session: "s1", file: "/p/plan.html", count: 1, ended: false, detected_at: "2026-11-30T10:00:00Z" }));
    const r = await vx(["sentinel", "drain"], { cwd: q.project, env: q.env });
    const reason = JSON.parse(r.stdout).reason as string;
    expect(reason).toBe(
      `${reasonFor(ID)}\nForum feedback is waiting for you:\nforum session /p/plan.html: 1 new message (ended: false). Run vx forum inbox.\nRead it, act on it, and acknowledge it with vx forum inbox --ack <uid> before ending your turn.`,
    );
  });
});
