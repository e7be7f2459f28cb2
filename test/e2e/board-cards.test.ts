// The board's cards against the compiled binary (FOR-09, FOR-14, FOR-15): a tmux soldier's screen read from its real
// pane through the sentinel's reading path and redacted before it leaves the server; the cost a card shows is what
// `vx status --json` reads; a scout's report opened as a review session; every refusal before any path is touched.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reportPath } from "../../src/lifecycle/observe";
import type { Task } from "../../src/state/schemas";
import { createTask, listTasks } from "../../src/state/tasks";
import { taskFixture, waitFor } from "../helpers";
import { appendPaneText, removeAgent } from "../fakes/herdr-control";
import { field, seedTask, taskIdOf } from "./soldier-field";
import { tmuxField } from "./tmux-field";

type Field = Awaited<ReturnType<typeof tmuxField>>;

/** The forum `vx forum board` started, asked with the token as the key (FOR-06) and a matching Origin for a POST. */
async function forumOf(f: Pick<Field, "run" | "home">) {
  const r = await f.run(["forum", "board"]);
  if (r.code !== 0) throw new Error(`vx forum board: ${r.stderr}`);
  const info = JSON.parse(readFileSync(join(f.home, ".vexillum", "forum", "server.json"), "utf8"));
  const base = `http://127.0.0.1:${info.port}`;
  const auth = { authorization: `Bearer ${info.token}` };
  return {
    base,
    get: (path: string, headers: Record<string, string> = auth) => fetch(`${base}${path}`, { headers }),
    post: (path: string, body: unknown, headers: Record<string, string> = { ...auth, origin: base }) =>
      fetch(`${base}${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...headers } }),
  };
}

const TOKEN = `ghp_${"Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5"}`; // fake, the shape only

describe("the board's cards (FOR-09, FOR-14, FOR-15)", () => {
  test("a running tmux soldier's screen: its pane's bottom, new text as it comes, a secret redacted; a gone pane and a remote task said so", async () => {
    await using f = await tmuxField();
    const r = await f.run(["dispatch", "fix the login bug", "--backend", "tmux"]);
    expect(r.code).toBe(0);
    const id = taskIdOf(r.stdout);
    const forum = await forumOf(f);
    try {
      const q = (task: string, project = f.project) => `/api/tasks/screen?project_path=${encodeURIComponent(project)}&task_id=${encodeURIComponent(task)}`;
      const screen = async (task = id) => {
        const res = await forum.get(q(task));
        expect(res.status).toBe(200);
        return (await res.json()) as { state: string; text: string; poll_ms: number };
      };
      const first = await waitFor(async () => ((s) => (s.state === "live" && s.text.includes("fix the login bug") ? s : undefined))(await screen()), 20_000, "the prompt on the screen");
      expect(first.poll_ms).toBeGreaterThan(0);

      // The soldier prints a secret and then more: the next look shows the new text, the secret never.
      f.tmux("send-keys", "-t", "=vx-fix-the-login-bug:", "-l", `export GITHUB_TOKEN=${TOKEN}`);
      f.tmux("send-keys", "-t", "=vx-fix-the-login-bug:", "Enter");
      f.tmux("send-keys", "-t", "=vx-fix-the-login-bug:", "-l", "new pane text 42");
      f.tmux("send-keys", "-t", "=vx-fix-the-login-bug:", "Enter");
      const later = await waitFor(async () => ((s) => (s.text.includes("new pane text 42") ? s : undefined))(await screen()), 20_000, "the new pane text");
      expect(later.text).toContain("export GITHUB_TOKEN=[redacted");
      expect(later.text).not.toContain(TOKEN);
      expect(later.text.split("\n").length).toBeLessThanOrEqual(40);
      // What the pane holds has the secret: only the board's copy is redacted.
      expect(f.tmux("capture-pane", "-p", "-t", "=vx-fix-the-login-bug:").out).toContain(TOKEN);

      // Refusals before any path is touched: no key, unknown project, a task id that is no id, a task the project lacks.
      expect((await forum.get(q(id), {})).status).toBe(403);
      expect((await forum.get(q(id, "/no/such/project"))).status).toBe(404);
      const bad = await forum.get(q("../../etc/passwd"));
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toContain("is not a task id");
      expect((await forum.get(q("0123456789abcdef"))).status).toBe(404);

      // A task on another machine: said, never guessed.
      const remote = taskFixture({ id: "fedcba9876543210", machine: "box", status: "running", harness: "claude", backend: "tmux" }) as Task;
      await createTask(f.paths, remote);
      expect(await screen(remote.id)).toMatchObject({ state: "remote", text: "on box: screen not available from the board" });

      // The pane gone (its server still serving another session): said so.
      expect(f.tmux("new-session", "-d", "-s", "keeper", "sleep 600").code).toBe(0);
      f.tmux("kill-session", "-t", "=vx-fix-the-login-bug");
      expect(await screen()).toMatchObject({ state: "gone", text: "its pane is gone: no soldier's screen to show" });
    } finally {
      await f.run(["forum", "stop"]);
    }
  });

  test("a herdr soldier's screen: read by its agent as the sentinel's survey reads it, redacted; gone once its agent is", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f, { status: "running", agentStatus: "working" });
    appendPaneText(f.fh, name, `working on it\nexport GITHUB_TOKEN=${TOKEN}\nstep 2 of 3\n`);
    const forum = await forumOf(f);
    try {
      const q = `/api/tasks/screen?project_path=${encodeURIComponent(f.project)}&task_id=${task.id}`;
      const live = (await (await forum.get(q)).json()) as { state: string; text: string };
      expect(live.state).toBe("live");
      expect(live.text).toContain("step 2 of 3");
      expect(live.text).toContain("export GITHUB_TOKEN=[redacted");
      expect(live.text).not.toContain(TOKEN);
      removeAgent(f.fh, name);
      expect(await (await forum.get(q)).json()).toMatchObject({ state: "gone" });
    } finally {
      await f.run(["forum", "stop"]);
    }
  });

  test("a card's cost is what vx status --json reads from the harness's records; the project's total and a task with none say so", async () => {
    await using f = await tmuxField();
    const r = await f.run(["dispatch", "fix the login bug", "--backend", "tmux"]);
    expect(r.code).toBe(0);
    const id = taskIdOf(r.stdout);
    const camp = listTasks(f.paths).find((t) => t.value.id === id)!.value.camp_path as string;
    const dir = join(f.home, ".claude", "projects", camp.replace(/[^a-zA-Z0-9]/g, "-"));
    mkdirSync(dir, { recursive: true });
    // A record made now, in the camp: the fixture's lines, stamped inside the task's window.
    const fixture = readFileSync(join(import.meta.dir, "..", "fixtures", "usage", "claude.jsonl"), "utf8").replaceAll("/CAMP", camp);
    writeFileSync(join(dir, "s.jsonl"), fixture.replace(/"timestamp":"[^"]+"/g, `"timestamp":"${new Date().toISOString()}"`));
    await createTask(f.paths, taskFixture({ id: "1234123412341234", harness: "claude", status: "done" }) as Task);
    const status = JSON.parse((await f.run(["status", "--json"])).stdout);
    expect(status.usage[id].input_tokens).toBeGreaterThan(0);
    const forum = await forumOf(f);
    try {
      const board = (await (await forum.get("/api/board")).json()) as { projects: { tasks: { id: string; usage: unknown }[]; usage_total: unknown }[]; usage_total: unknown };
      const cards = Object.fromEntries(board.projects[0]!.tasks.map((t) => [t.id, t.usage]));
      expect(cards[id]).toEqual(status.usage[id]);
      expect(cards["1234123412341234"]).toEqual({ unknown: "no camp recorded for this task" });
      expect(board.projects[0]!.usage_total).toEqual(status.usage_total);
      expect(board.usage_total).toEqual(status.usage_total);
    } finally {
      await f.run(["forum", "stop"]);
    }
  });

  test("Review report: a scout's report opens as the review session vx forum <report> opens, and its page shows the report", async () => {
    await using f = await tmuxField();
    const scout = taskFixture({ id: "5a5a5a5a5a5a5a5a", kind: "scout", status: "done", harness: "claude", backend: "tmux", tmux_target: "vx-look-around" }) as Task;
    await createTask(f.paths, scout);
    await createTask(f.paths, taskFixture({ id: "6b6b6b6b6b6b6b6b", kind: "mission", status: "done", harness: "claude" }) as Task);
    const forum = await forumOf(f);
    try {
      const review = (task_id: string, headers?: Record<string, string>) => forum.post("/api/tasks/review", { project_path: f.project, task_id }, headers);
      expect((await review(scout.id)).status).toBe(404); // no report yet
      expect((await review("6b6b6b6b6b6b6b6b")).status).toBe(409); // a mission
      expect((await review("zz")).status).toBe(400);
      expect((await forum.post("/api/tasks/review", { project_path: "/elsewhere", task_id: scout.id })).status).toBe(404);
      // A change needs the key and a matching Origin (FOR-06).
      const info = JSON.parse(readFileSync(join(f.home, ".vexillum", "forum", "server.json"), "utf8"));
      expect((await review(scout.id, { authorization: `Bearer ${info.token}` })).status).toBe(403); // no Origin
      expect((await review(scout.id, { origin: forum.base })).status).toBe(403); // no key

      const report = reportPath(f.paths, scout);
      mkdirSync(f.paths.reportsDir, { recursive: true });
      writeFileSync(report, "# Findings\n\nThe login bug lives in session.ts.\n");
      const res = await review(scout.id);
      expect(res.status).toBe(200);
      const opened = (await res.json()) as { session: string; url: string };
      expect(opened.url).toBe(`/s/${opened.session}`);
      // The same session the command opens.
      const cli = await f.run(["forum", report]);
      expect(cli.code).toBe(0);
      expect(cli.stdout).toContain(`/s/${opened.session}#c=`);
      const doc = (await (await forum.get(`/api/sessions/${opened.session}`)).json()) as { file: string; project_path: string };
      expect(doc).toMatchObject({ file: realpathSync(report), project_path: f.project });
      const view = (await (await forum.post(`/api/sessions/${opened.session}/view`, {})).json()) as { url: string };
      const artifact = await fetch(`${forum.base}${view.url}`);
      expect(artifact.status).toBe(200);
      expect(await artifact.text()).toContain("The login bug lives in session.ts.");
      // The commander answers it by the path it knows.
      expect((await f.run(["forum", "reply", report, "thanks"])).code).toBe(0);
    } finally {
      await f.run(["forum", "stop"]);
    }
  });
});
