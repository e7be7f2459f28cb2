// The board's actions end to end (FOR-14): the compiled binary's forum server, started by `vx forum board` in a field
// with the fake herdr, runs each command itself in the project's checkout; real git repos and camps. Each action's
// success and refusal through HTTP, the server's own checks, and the doors (FOR-06) an action goes through.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Decision } from "../../src/state/schemas";
import { sentKeys, updateState } from "../fakes/herdr-control";
import { jsonOf } from "../forum-kit";
import { alive, git, waitFor } from "../helpers";
import { holdLock, waitedOn } from "../lock-kit";
import { type Field, field, seedTask } from "./soldier-field";

type Board = {
  base: string;
  token: string;
  /** POST /api/tasks/<action> with the token as the key, JSON and a matching Origin unless `headers` say otherwise. */
  act(action: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  log(): string;
  [Symbol.asyncDispose](): Promise<void>;
};

/** The forum server of the field's state root, started as the general starts it; stopped (verified) at the end. */
async function board(f: Field): Promise<Board> {
  const r = await f.run(["forum", "board"]);
  if (r.code !== 0) throw new Error(`vx forum board exited ${r.code}: ${r.stderr}`);
  const dir = join(f.home, ".vexillum", "forum");
  const info = JSON.parse(readFileSync(join(dir, "server.json"), "utf8"));
  const base = `http://127.0.0.1:${info.port}`;
  return {
    base,
    token: info.token,
    act: (action, body, headers = {}) =>
      fetch(`${base}/api/tasks/${action}`, {
        method: "POST",
        body: typeof body === "string" ? body : JSON.stringify(body),
        headers: { "content-type": "application/json", origin: base, authorization: `Bearer ${info.token}`, ...headers },
        redirect: "manual",
      }),
    log: () => readFileSync(join(dir, "server.log"), "utf8"),
    async [Symbol.asyncDispose]() {
      if (!alive(info.pid)) return;
      await f.run(["forum", "stop"]);
      await waitFor(() => !alive(info.pid), 10_000, "the forum server to stop");
    },
  };
}

/** The project's own files committed, as a general's checkout is before a land. */
function committed(f: Field): void {
  git(f.project, "add", "-A");
  git(f.project, "commit", "-q", "-m", "vexillum scaffold");
}

function commitIn(camp: string, file = "work.txt"): string {
  writeFileSync(join(camp, file), "the soldier's work\n");
  git(camp, "add", file);
  git(camp, "commit", "-q", "-m", `add ${file}`);
  return git(camp, "rev-parse", "HEAD");
}

const ASKED = "2026-11-30T10:00:00.000Z";
const MODAL: Decision = { question: "Which database should the service use?", options: ["Postgres", "SQLite"], asked_at: ASKED, kind: "modal" };

describe("board actions (FOR-14)", () => {
  test("land: a done mission with commits fast-forwards the base; the answer is the command's own output", async () => {
    await using f = await field();
    committed(f);
    const { task } = await seedTask(f);
    const head = commitIn(task.camp_path as string);
    await using b = await board(f);
    const res = await b.act("land", { project_path: f.project, task_id: task.id });
    const body = await jsonOf(res);
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ ok: true, exit: 0, error: "" });
    expect(body.output).toStartWith(`landed: fast-forwarded ${f.project} to vexillum/${task.id}\n`);
    expect(git(f.project, "rev-parse", "main")).toBe(head);
    expect(f.task(task.id).landed_commit).toBe(head);
    const doc = await jsonOf(await fetch(`${b.base}/api/board`, { headers: { authorization: `Bearer ${b.token}` } }));
    expect(doc.projects[0].tasks.find((t: { id: string }) => t.id === task.id).state).toBe("landed");
    expect(b.log()).toContain(`forum: the board ran vx land ${task.id} in ${f.project}: exit 0`);
  });

  test("a land waits for the task's lock a command in a terminal holds, while the server goes on answering; then lands", async () => {
    await using f = await field();
    committed(f);
    const { task } = await seedTask(f);
    const head = commitIn(task.camp_path as string);
    const before = git(f.project, "rev-parse", "main");
    await using b = await board(f);
    const lockPath = join(f.paths.tasksDir, `.${task.id}.op.lock`);
    const holder = await holdLock(lockPath);
    const landing = b.act("land", { project_path: f.project, task_id: task.id });
    try {
      await waitFor(() => waitedOn(lockPath), 20_000, `vx land to wait on ${lockPath}`);
      // The wait is the child's, in the kernel: the server answers the board meanwhile, the base unmoved.
      const doc = await jsonOf(await fetch(`${b.base}/api/board`, { headers: { authorization: `Bearer ${b.token}` } }));
      expect(doc.projects[0].tasks.find((t: { id: string }) => t.id === task.id).state).toBe("done");
      expect(git(f.project, "rev-parse", "main")).toBe(before);
    } finally {
      await holder.release();
    }
    const res = await landing;
    expect(res.status).toBe(200);
    expect(git(f.project, "rev-parse", "main")).toBe(head);
  });

  test("land refused while the soldier is still working (no commit yet): 409 with the command's refusal, nothing moved", async () => {
    await using f = await field();
    committed(f);
    const { task } = await seedTask(f, { status: "running", agentStatus: "working" });
    const before = git(f.project, "rev-parse", "main");
    await using b = await board(f);
    const res = await b.act("land", { project_path: f.project, task_id: task.id });
    expect(res.status).toBe(409);
    const body = await jsonOf(res);
    expect(body).toMatchObject({ ok: false, exit: 1, output: "" });
    expect(body.error).toBe(
      `vx: land refused: nothing to land yet: vexillum/${task.id} has no commit that main lacks - wait for the soldier's commits, or strike task ${task.id} if its work is already in main`,
    );
    expect(git(f.project, "rev-parse", "main")).toBe(before);
    expect(f.task(task.id).status).toBe("running");
  });

  test("decide: a blocked task's answer by option text reaches its soldier as the option's digit", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f, { status: "blocked", decision: MODAL, agentStatus: "blocked" });
    // The dialog goes away when its key is pressed, as Claude Code's does.
    updateState(f.fh, (s) => {
      const agent = s.panes.find((p) => p.agent?.name === name)?.agent;
      if (!agent) throw new Error(`no agent ${name}`);
      agent.accept_key = "2";
    });
    await using b = await board(f);
    const res = await b.act("decide", { project_path: f.project, task_id: task.id, answer: "SQLite" });
    const body = await jsonOf(res);
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ ok: true, exit: 0, error: "" });
    expect(body.output).toStartWith(`status=running\nanswered task ${task.id}, now running`);
    expect(sentKeys(f.fh, name).map((k) => k.keys)).toEqual([["2"]]);
    expect(f.task(task.id).decision).toMatchObject({ ...MODAL, answer: "SQLite" });
  });

  test("decide refused for a task that is not blocked; a blank answer is refused before any command runs", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "done" });
    await using b = await board(f);
    let res = await b.act("decide", { project_path: f.project, task_id: task.id, answer: "yes" });
    expect(res.status).toBe(409);
    expect((await jsonOf(res)).error).toBe(`vx: task ${task.id} is done, not blocked - only a blocked task can be answered`);
    res = await b.act("decide", { project_path: f.project, task_id: task.id, answer: "  " });
    expect(res.status).toBe(400);
    expect(await jsonOf(res)).toEqual({ ok: false, output: "", error: "write an answer first" });
    expect(b.log()).not.toContain(`vx decide ${task.id} --stdin in ${f.project}: exit 0`);
  });

  test("resume and redispatch refused for a task that is not interrupted", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "done" });
    await using b = await board(f);
    let res = await b.act("resume", { project_path: f.project, task_id: task.id });
    expect(res.status).toBe(409);
    expect((await jsonOf(res)).error).toBe(`vx: task ${task.id} is done - only an interrupted or unconfirmed task can be resumed`);
    res = await b.act("redispatch", { project_path: f.project, task_id: task.id });
    expect(res.status).toBe(409);
    expect((await jsonOf(res)).error).toBe(`vx: task ${task.id} is done - only an interrupted or failed task can be redispatched`);
    expect(f.task(task.id).status).toBe("done");
  });

  test("the server's own checks: an unknown project or task, a malformed id or body, an unknown action", async () => {
    await using f = await field();
    const { task } = await seedTask(f);
    await using b = await board(f);
    const cases: [string, unknown, number, string][] = [
      ["land", { project_path: "/etc", task_id: task.id }, 404, "the forum knows no such project"],
      ["land", { project_path: f.project, task_id: "0123456789abcdef" }, 404, `project ${f.project} has no task 0123456789abcdef`],
      ["land", { project_path: f.project, task_id: "../../../etc/passwd" }, 400, '"../../../etc/passwd" is not a task id (16 hex characters)'],
      ["land", { project_path: f.project }, 400, 'the body must name the task: {"project_path", "task_id"}'],
      ["land", "[1]", 400, "the body is not a JSON object"],
      ["strike", { project_path: f.project, task_id: task.id }, 404, "no such forum action"],
    ];
    for (const [action, body, status, error] of cases) {
      const res = await b.act(action, body);
      expect([action, res.status]).toEqual([action, status]);
      expect((await jsonOf(res)).error).toBe(error);
    }
    expect(b.log()).not.toContain("the board ran");
    expect(f.task(task.id).status).toBe("done");
  });

  test("the doors (FOR-06): no key, a cookie, another Origin or Host, not a POST, not JSON: refused and nothing runs", async () => {
    await using f = await field();
    committed(f);
    const { task } = await seedTask(f);
    const head = git(f.project, "rev-parse", "main");
    commitIn(task.camp_path as string);
    await using b = await board(f);
    const body = { project_path: f.project, task_id: task.id };
    const port = new URL(b.base).port;
    const refusals: [Record<string, string>, number][] = [
      [{ authorization: "" }, 403],
      [{ authorization: "", cookie: `vx_forum_${port}=${b.token}` }, 403],
      [{ authorization: `Bearer ${"0".repeat(64)}` }, 403],
      [{ origin: "http://127.0.0.1:1" }, 403],
      [{ origin: "http://evil.example" }, 403],
      [{ host: "evil.example" }, 421],
      [{ "content-type": "text/plain" }, 403],
    ];
    for (const [headers, status] of refusals) expect([headers, (await b.act("land", body, headers)).status]).toEqual([headers, status]);
    const put = await fetch(`${b.base}/api/tasks/land`, {
      method: "PUT",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", origin: b.base, authorization: `Bearer ${b.token}` },
    });
    expect(put.status).toBe(405);
    expect(git(f.project, "rev-parse", "main")).toBe(head);
    expect(b.log()).not.toContain("the board ran");
    // The same request with the key, from the page's own origin, lands.
    expect((await b.act("land", body)).status).toBe(200);
  });
});
