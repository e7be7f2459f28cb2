// The board's conversation with a project's commander (FOR-07, FOR-08, FOR-09, FOR-12) against the real
// compiled vx, a real state root and a real `vx sentinel await`.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stopSentinel } from "../await-kit";
import { forum, jsonOf } from "../forum-kit";
import { VX_BIN, waitFor } from "../helpers";

type Line = { uid: string; from: string; text: string; at: string };
const talkOf = (stateDir: string): Line[] =>
  readFileSync(join(stateDir, "forum-board.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

async function boardProject(f: Awaited<ReturnType<typeof forum>>) {
  const doc = await jsonOf(await f.req("/api/board"));
  return doc.projects.find((p: { project_path: string }) => p.project_path === f.project);
}

describe("the board's conversation (FOR-09)", () => {
  test("a board message is a conversation line, an inbox message and a wake; vx forum reply board answers it and acknowledges it; nobody listening is said", async () => {
    await using f = await forum();
    await f.open(["board"]);
    const sent = await f.post("/api/projects/messages", { project_path: f.project, text: "Why is <b>it</b> slow?" });
    expect(sent.status).toBe(201);
    const { uid, listening } = await jsonOf(sent);
    // No await, no registered commander: nobody hears it until someone reads the inbox.
    expect(listening).toBe(false);
    expect(talkOf(f.stateDir)).toEqual([{ uid, from: "general", text: "Why is <b>it</b> slow?", at: expect.any(String) }]);
    expect(JSON.parse(readFileSync(join(f.stateDir, "forum-inbox", "general", `${uid}.json`), "utf8"))).toMatchObject({ uid, session: "general", file: "board" });
    expect(existsSync(join(f.stateDir, "wakes", "forum", "general.json"))).toBe(true);
    const before = await boardProject(f);
    expect(before.talk.map((l: Line) => [l.from, l.text])).toEqual([["general", "Why is <b>it</b> slow?"]]);
    expect(before.talk_total).toBe(1);
    expect(before.listening).toEqual({ listening: false });

    const r = await f.run(["reply", "board", "The", "build", "cache", "was", "cold"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`replied on the board; acked ${uid}\n`);
    expect(r.code).toBe(0);
    expect(talkOf(f.stateDir).map((l) => [l.from, l.text])).toEqual([
      ["general", "Why is <b>it</b> slow?"],
      ["commander", "The build cache was cold"],
    ]);
    // FOR-03's rule: all read, so the wake is gone and the inbox is empty.
    expect(existsSync(join(f.stateDir, "wakes", "forum", "general.json"))).toBe(false);
    expect((await f.run(["inbox"])).stdout).toBe("no forum feedback waiting in this project.\n");
    // A second reply acknowledges nothing and says so by saying less.
    expect((await f.run(["reply", "board", "Fixed now"])).stdout).toBe("replied on the board\n");
    expect((await boardProject(f)).talk.map((l: Line) => l.text)).toEqual(["Why is <b>it</b> slow?", "The build cache was cold", "Fixed now"]);
  }, 120_000);

  test("the board shows the newest 50 lines and how many there are; a new line reaches an open event stream", async () => {
    await using f = await forum();
    await f.open(["board"]);
    for (let i = 0; i < 52; i++) expect((await f.run(["reply", "board", `line ${i}`])).code).toBe(0);
    const p = await boardProject(f);
    expect(p.talk_total).toBe(52);
    expect(p.talk).toHaveLength(50);
    expect(p.talk[0].text).toBe("line 2");
    expect(p.talk.at(-1).text).toBe("line 51");
    const stream = await f.req("/api/events");
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const text = new TextDecoder();
    let seen = "";
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        seen += text.decode(value, { stream: true });
      }
    })();
    await waitFor(() => seen.includes(": open"), 10_000, "the stream to open");
    expect((await f.run(["reply", "board", "one more"])).code).toBe(0);
    await waitFor(() => seen.includes("event: board"), 10_000, "the board event for the new line");
    await reader.cancel();
    await reading;
  }, 180_000);

  test("refusals: no text, blank, too long, not UTF-8; ./board names a file, not the board", async () => {
    await using f = await forum();
    await f.open(["board"]);
    const missing = await f.run(["reply", "board"]);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain("missing <text> for forum reply");
    const blank = await f.run(["reply", "board", "   "]);
    expect(blank.code).toBe(64);
    expect(blank.stderr).toContain("the message is empty - give the reply as text");
    const long = await f.run(["reply", "board", "x".repeat(20001)]);
    expect(long.code).toBe(64);
    expect(long.stderr).toContain("the message is 20001 bytes, over the 20000-byte limit");
    expect(existsSync(join(f.stateDir, "forum-board.jsonl"))).toBe(false);
    // The page's box: blank and not UTF-8 refused with 400 and nothing written.
    expect((await f.post("/api/projects/messages", { project_path: f.project, text: " \n " })).status).toBe(400);
    const bad = await f.req("/api/projects/messages", {
      method: "POST",
      body: new Uint8Array([...new TextEncoder().encode('{"project_path":'), ...new TextEncoder().encode(JSON.stringify(f.project)), ...new TextEncoder().encode(',"text":"'), 0xff, 0x22, 0x7d]),
      headers: { "content-type": "application/json", origin: f.base() },
    });
    expect(bad.status).toBe(400);
    expect((await jsonOf(bad)).error).toBe("the message is not valid UTF-8");
    expect((await f.post("/api/projects/messages", { project_path: "/nowhere", text: "hi" })).status).toBe(404);
    expect(existsSync(join(f.stateDir, "forum-board.jsonl"))).toBe(false);
    // A file named board is ./board: a review's reply, refused for want of a session.
    writeFileSync(join(f.project, "board"), "notes\n");
    const file = await f.run(["reply", "./board", "hi"]);
    expect(file.code).not.toBe(0);
    expect(file.stderr).toContain("./board");
    expect(file.stdout).toBe("");
    expect(existsSync(join(f.stateDir, "forum-board.jsonl"))).toBe(false);
  }, 120_000);

  test("a live sentinel await of the project is a commander listening: the box says so, the await hears the message, then nobody listens", async () => {
    await using f = await forum({ VX_TIME_SCALE: "1" });
    await f.open(["board"]);
    const a = Bun.spawn([VX_BIN, "sentinel", "await"], { cwd: f.project, env: f.env, stdout: "ignore", stderr: "pipe" });
    try {
      await waitFor(() => existsSync(join(f.root, "sentinel-awaiters", `${a.pid}.json`)), 10_000, "the await's registration");
      expect((await boardProject(f)).listening).toEqual({ listening: true, by: "await" });
      const sent = await f.post("/api/projects/messages", { project_path: f.project, text: "Land the parser first" });
      expect(sent.status).toBe(201);
      expect((await jsonOf(sent)).listening).toBe(true);
      // The await delivers the board's wake and ends (AWT-03), so nobody listens any more.
      expect(await a.exited).toBe(2);
      expect(await new Response(a.stderr).text()).toContain("forum session board");
      await waitFor(() => readdirSync(join(f.root, "sentinel-awaiters")).length === 0, 10_000, "the await to unregister");
      expect((await boardProject(f)).listening).toEqual({ listening: false });
    } finally {
      a.kill("SIGTERM");
      await a.exited;
      await stopSentinel(f.root);
    }
  }, 120_000);

  test("a conversation that cannot be written is a 503 with nothing delivered; a line a killed server left undelivered reaches the inbox at the next start", async () => {
    await using f = await forum();
    await f.open(["board"]);
    const talk = join(f.stateDir, "forum-board.jsonl");
    // Something that is not a file where the conversation goes: the line cannot be written.
    mkdirSync(talk);
    const refused = await f.post("/api/projects/messages", { project_path: f.project, text: "Keep this" });
    expect(refused.status).toBe(503);
    expect((await jsonOf(refused)).error).toContain("your text is kept - send it again");
    expect(existsSync(join(f.stateDir, "forum-inbox", "general"))).toBe(false);
    expect(existsSync(join(f.stateDir, "wakes", "forum", "general.json"))).toBe(false);
    rmSync(talk, { recursive: true });
    // A server killed after the line and before the inbox left this: the next start delivers it, once.
    await f.stop();
    const line = { uid: "mabc123-0badf00d", from: "general", text: "Left behind", at: new Date().toISOString() };
    writeFileSync(talk, `${JSON.stringify(line)}\n`);
    await f.open(["board"]);
    const inbox = JSON.parse((await f.run(["inbox", "--json"])).stdout);
    expect(inbox.sessions).toEqual([{ session: "general", file: "board", messages: [{ uid: line.uid, text: "Left behind", received_at: line.at }] }]);
    expect(existsSync(join(f.stateDir, "wakes", "forum", "general.json"))).toBe(true);
    expect(readFileSync(join(f.root, "forum", "server.log"), "utf8")).toContain(`forum: delivered 1 board message(s) to ${f.project} a stopped server had not`);
    await f.stop();
    await f.open(["board"]);
    expect(readdirSync(join(f.stateDir, "forum-inbox", "general")).filter((n) => n.endsWith(".json"))).toEqual([`${line.uid}.json`]);
  }, 120_000);
});
