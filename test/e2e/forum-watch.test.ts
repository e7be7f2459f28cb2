// How the forum server hears of changes (FOR-08, FOR-09, FOR-12): with a page open it watches the state
// directories (inotify), so another process's atomic write reaches the open event stream, and a project made
// after the server started is watched too. VX_TIME_SCALE=10 puts the server's timed look 50 s away: within
// these tests' waits only the watch can deliver an event.
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { projectKey } from "../../src/state/paths";
import { type Forum, forumEachTest, jsonOf, openPlan } from "../forum-kit";
import { waitFor } from "../helpers";

const start = forumEachTest();
const SLOW_TIMER = { VX_TIME_SCALE: "10" };

/** The page's event stream, read as it arrives; `from(mark)` is what came after a `mark()`. */
async function stream(f: Forum) {
  let text = "";
  const res = await f.req("/api/events");
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += new TextDecoder().decode(value, { stream: true });
    }
  })().catch(() => {});
  await waitFor(() => text.includes(": open"), 10_000, "the stream to open");
  return {
    mark: () => text.length,
    from: (mark: number) => text.slice(mark),
    async close() {
      await reader.cancel();
      await reading;
    },
  };
}

/** Another process saves a file as vx does: a temporary renamed into place. */
function saveElsewhere(path: string, body: unknown): void {
  const r = Bun.spawnSync(["sh", "-c", 'printf %s "$1" > "$2.tmp" && mv "$2.tmp" "$2"', "sh", JSON.stringify(body), path]);
  expect(r.exitCode).toBe(0);
}

function task(id: string, status: string) {
  return { id, schema_version: 1, kind: "mission", prompt: `task ${id}`, status, created_at: "2026-12-01T10:00:00Z", updated_at: "2026-12-01T10:00:00Z" };
}

type Board = { projects: { project_path: string; tasks: { id: string; status: string }[] }[] };

describe("the forum watches what its pages show (FOR-09, FOR-12)", () => {
  test("another process's atomic task write is a `board` event on the open stream; a reply a `session` event; an edit of the artifact an `artifact` event", async () => {
    const f = await start(SLOW_TIMER);
    const s = await openPlan(f);
    const events = await stream(f);
    // A reply from another process (the commander's CLI): its event also orders the stream, so what follows is new.
    expect((await f.run(["reply", "plan.md", "Looking"])).code).toBe(0);
    await waitFor(() => events.from(0).includes(`event: session\ndata: {"session":"${s}"}`), 20_000, "the session event of the reply");

    const tasks = join(f.stateDir, "tasks");
    mkdirSync(tasks, { recursive: true });
    const mark = events.mark();
    saveElsewhere(join(tasks, "7100000000000001.json"), task("7100000000000001", "running"));
    await waitFor(() => events.from(mark).includes("event: board"), 20_000, "the board event of the task write");
    const board = (await jsonOf(await f.req("/api/board"))) as Board;
    expect(board.projects.flatMap((p) => p.tasks).map((t) => [t.id, t.status])).toContainEqual(["7100000000000001", "running"]);

    const edit = events.mark();
    expect(Bun.spawnSync(["sh", "-c", 'printf "\\n3. Ship it\\n" >> "$1"', "sh", join(f.project, "plan.md")]).exitCode).toBe(0);
    await waitFor(() => events.from(edit).includes(`event: artifact\ndata: {"session":"${s}"}`), 20_000, "the artifact event of the edit");
    await events.close();
  }, 90_000);

  test("a project created after the server started is watched: a task saved in it reaches the open stream", async () => {
    const f = await start(SLOW_TIMER);
    const s = await openPlan(f);
    const events = await stream(f);
    const path = join(f.home, "later");
    mkdirSync(path);
    const dir = join(f.root, "projects", projectKey(path));
    mkdirSync(join(dir, "tasks"), { recursive: true });
    saveElsewhere(join(dir, "project.json"), { schema_version: 1, path });
    await waitFor(async () => ((await jsonOf(await f.req("/api/board"))) as Board).projects.some((p) => p.project_path === path), 20_000, "the new project on the board");
    // Any look after the reply's write also saw the new project's directories, and the server arms before it looks.
    expect((await f.run(["reply", "plan.md", "Noted"])).code).toBe(0);
    await waitFor(() => events.from(0).includes(`event: session\ndata: {"session":"${s}"}`), 20_000, "the session event of the reply");

    const mark = events.mark();
    saveElsewhere(join(dir, "tasks", "7200000000000001.json"), task("7200000000000001", "done"));
    await waitFor(() => events.from(mark).includes("event: board"), 20_000, "the board event of the new project's task");
    const board = (await jsonOf(await f.req("/api/board"))) as Board;
    expect(board.projects.find((p) => p.project_path === path)?.tasks.map((t) => [t.id, t.status])).toEqual([["7200000000000001", "done"]]);
    await events.close();
  }, 90_000);
});
