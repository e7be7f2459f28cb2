// The forum server end to end (FOR-05, FOR-07, FOR-08, FOR-10, FOR-12): the compiled binary, real
// HTTP from outside a browser: review sessions, and a server killed with SIGKILL while messages
// arrive. Access (FOR-06): forum-access.test.ts.
import { describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { forumEachTest, inboxFiles, jsonOf, sessionOf, writePlan } from "../forum-kit";
import { VX_BIN, alive, vx, waitFor, writeExecutable } from "../helpers";

const start = forumEachTest();

describe("review sessions (FOR-07, FOR-08, FOR-10)", () => {
  test("a message is transcript, inbox and wake before its 201; reply acks it; end marks the wake ended and refuses more", async () => {
    const f = await start();
    writePlan(f);
    const s = sessionOf(await f.open(["plan.md"]));
    expect(s).toMatch(/^plan\.md-[0-9a-f]{8}$/);
    const r = await f.post(`/api/sessions/${s}/messages`, { text: "Shorten step 2" });
    expect(r.status).toBe(201);
    const { uid } = await jsonOf(r);
    const transcript = readFileSync(join(f.root, "forums", s, "transcript.jsonl"), "utf8");
    expect(JSON.parse(transcript.trim())).toMatchObject({ uid, from: "general", text: "Shorten step 2" });
    expect(JSON.parse(readFileSync(join(f.stateDir, "forum-inbox", s, `${uid}.json`), "utf8"))).toMatchObject({ uid, session: s, file: "plan.md" });
    const wakePath = join(f.stateDir, "wakes", "forum", `${s}.json`);
    expect(JSON.parse(readFileSync(wakePath, "utf8"))).toMatchObject({ session: s, file: "plan.md", count: 1, ended: false });
    expect((await f.run(["inbox"])).stdout).toContain("Shorten step 2");
    expect(await f.run(["list"])).toMatchObject({ code: 0, stdout: expect.stringContaining(`plan.md (${s}): 1 unread`) });

    const reply = await f.run(["reply", "plan.md", "Done:", "step", "2", "is", "shorter"]);
    expect(reply).toMatchObject({ code: 0, stdout: `replied in plan.md; acked ${uid}\n` });
    expect(existsSync(wakePath)).toBe(false);
    const doc = await jsonOf(await f.req(`/api/sessions/${s}`));
    expect(doc.transcript.map((l: { from: string; text: string }) => [l.from, l.text])).toEqual([
      ["general", "Shorten step 2"],
      ["commander", "Done: step 2 is shorter"],
    ]);

    expect((await f.post(`/api/sessions/${s}/messages`, { text: "one more" })).status).toBe(201);
    expect(await f.run(["end", "plan.md"])).toMatchObject({ code: 0 });
    const again = await f.run(["end", "plan.md"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toEndWith("vx: the forum session for plan.md has already ended - nothing to end; 'vx forum plan.md' opens it again\n");
    expect(JSON.parse(readFileSync(wakePath, "utf8"))).toMatchObject({ ended: true, count: 1 });
    const late = await f.post(`/api/sessions/${s}/messages`, { text: "too late" });
    expect(late.status).toBe(409);
    expect((await jsonOf(late)).error).toContain("ended");
    expect(await f.run(["reply", "plan.md", "x"])).toMatchObject({ code: 1, stderr: expect.stringContaining("has ended") });
    const list = JSON.parse((await f.run(["list", "--json"])).stdout);
    expect(list.sessions).toEqual([expect.objectContaining({ session: s, file: "plan.md", unread: 1, ended: true })]);
  });

  test("a forum wake pings the general's notifier with the forum section (WAK-14)", async () => {
    const f = await start();
    const out = join(f.home, "pinged");
    writeExecutable(join(f.bin, "ping-me"), `#!/bin/sh\n{ cat; echo "status=$VX_NEW_STATUS task=[$VX_TASK_ID]"; } > "${out}"\n`);
    const config = join(f.project, ".vexillum", "config.json");
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), notify: ["ping-me"] }, null, 2));
    writePlan(f);
    const s = sessionOf(await f.open(["plan.md"]));
    expect((await f.post(`/api/sessions/${s}/messages`, { text: "ping" })).status).toBe(201);
    await waitFor(() => existsSync(out) && readFileSync(out, "utf8").includes("status=forum"), 10_000, "the notifier to run");
    expect(readFileSync(out, "utf8")).toContain("forum session plan.md: 1 new message (ended: false). Run vx forum inbox.");
    expect(readFileSync(out, "utf8")).toContain("task=[]");
  });

  test("bad messages are refused with a reason and write nothing (FOR-10)", async () => {
    const f = await start();
    writePlan(f);
    const s = sessionOf(await f.open(["plan.md"]));
    const path = `/api/sessions/${s}/messages`;
    const cases: [unknown, string][] = [
      [{ text: "" }, "empty"],
      [{ text: "   \n" }, "empty"],
      [{ text: "x".repeat(20001) }, "over the 20000-byte limit"],
      [{ text: 42 }, "must be text"],
      ["not json", "not a JSON object"],
    ];
    for (const [body, reason] of cases) {
      const r = await f.post(path, body);
      expect(r.status).toBe(400);
      expect((await jsonOf(r)).error).toContain(reason);
    }
    const bytes = new Uint8Array([0x7b, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const raw = await f.req(path, { method: "POST", body: bytes, headers: { "content-type": "application/json", origin: f.base() } });
    expect(raw.status).toBe(400);
    expect((await jsonOf(raw)).error).toContain("not valid UTF-8");
    expect((await f.post("/api/sessions/nope-00000000/messages", { text: "x" })).status).toBe(404);
    expect(inboxFiles(f, s)).toEqual([]);
    expect(existsSync(join(f.root, "forums", s, "transcript.jsonl"))).toBe(false);
    expect(await f.run(["reply", "plan.md"])).toMatchObject({ code: 64, stderr: expect.stringContaining("missing <text>") });
    writePlan(f, "x", "other.md");
    expect(await f.run(["reply", "other.md", "hi"])).toMatchObject({ code: 1, stderr: expect.stringContaining("no forum session for other.md") });
  });
});

describe("the server's life (FOR-05)", () => {
  test("one server per state root: a second refuses naming the first; forum stop stops the verified one", async () => {
    const f = await start();
    const doctor = async () => (await vx(["doctor"], { cwd: f.project, env: f.env })).stdout.split("\n").find((l) => l.includes("] forum"));
    expect(await doctor()).toBe("[ok] forum - server not running (vx forum board starts it)");
    await f.open(["board"]);
    const { pid } = f.info();
    expect(await doctor()).toBe(`[ok] forum - server running (pid ${pid}) on 127.0.0.1:${f.info().port} - vx forum board prints its URL`);
    const second = await f.run(["serve"]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`a forum server is already running (pid ${pid})`);
    expect(second.stderr).toEndWith(" - not starting a second one; 'vx forum board' prints its URL, 'vx forum stop' stops it\n");
    expect(alive(pid)).toBe(true);
    // server.json naming a process that is not this root's forum server: never signalled, and the
    // refusal says what to end instead.
    const infoPath = join(f.root, "forum", "server.json");
    const saved = readFileSync(infoPath, "utf8");
    writeFileSync(infoPath, JSON.stringify({ ...JSON.parse(saved), pid: process.pid }));
    const refused = await f.run(["stop"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toEndWith(`is not this state root's forum server - not signalling it; end the 'vx forum serve' process that holds ${join(f.root, "forum", "server.lock")} yourself\n`);
    // server.json gone while the server holds its lock: nothing signalled, and the refusal says how
    // to find the holder.
    rmSync(infoPath);
    const nameless = await f.run(["stop"]);
    expect(nameless.code).toBe(1);
    expect(nameless.stderr).toBe(
      `vx: a forum server holds ${join(f.root, "forum", "server.lock")} but ${infoPath} names none - end that 'vx forum serve' process yourself ('fuser ${join(f.root, "forum", "server.lock")}' names its pid), then run 'vx forum stop' again\n`,
    );
    expect(alive(pid)).toBe(true);
    writeFileSync(infoPath, saved);
    // A second forum command reuses it.
    await f.open(["board"]);
    expect(f.info().pid).toBe(pid);
    expect(await f.run(["stop"])).toMatchObject({ code: 0, stdout: `stopped the forum server (pid ${pid})\n` });
    expect(alive(pid)).toBe(false);
    expect(existsSync(join(f.root, "forum", "server.json"))).toBe(false);
    expect(await f.run(["stop"])).toMatchObject({ code: 0, stdout: "no forum server is running\n" });
  });

  test("with no page open and nothing happening, the server exits at the (scaled) idle limit", async () => {
    // 8 h x 0.0001 = 2.9 s.
    const f = await start({ VX_TIME_SCALE: "0.0001" });
    await f.open(["board"]);
    const { pid } = f.info();
    await waitFor(() => !alive(pid), 30_000, "the idle server to exit");
    expect(readFileSync(join(f.root, "forum", "server.log"), "utf8")).toContain(`forum: server ${pid} stopping: idle with no open page`);
    expect(existsSync(join(f.root, "forum", "server.json"))).toBe(false);
  });

  test("kill -9 while messages arrive: every 201 is on disk in all three places; a restart delivers the rest and serves the same transcript", async () => {
    const f = await start();
    writePlan(f);
    const s = sessionOf(await f.open(["plan.md"]));
    const { pid, port, token } = f.info();
    const sent: string[] = [];
    let stop = false;
    const senders = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        try {
          const r = await f.post(`/api/sessions/${s}/messages`, { text: `w${w} m${i}` });
          if (r.status === 201) sent.push((await jsonOf(r)).uid);
        } catch {
          return; // the server is gone
        }
      }
    });
    await waitFor(() => sent.length >= 20, 20_000, "some messages to be accepted");
    process.kill(pid, "SIGKILL");
    await waitFor(() => !alive(pid), 5000, "the server to die");
    stop = true;
    await Promise.all(senders);
    const lines = readFileSync(join(f.root, "forums", s, "transcript.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const onDisk = new Set(lines.map((l) => l.uid));
    for (const uid of sent) {
      expect(onDisk.has(uid)).toBe(true);
      expect(existsSync(join(f.stateDir, "forum-inbox", s, `${uid}.json`))).toBe(true);
    }
    expect(existsSync(join(f.stateDir, "wakes", "forum", `${s}.json`))).toBe(true);
    // A new server: same port and token, every transcript line of the general in the inbox.
    await f.open(["board"]);
    expect(f.info().pid).not.toBe(pid);
    expect(f.info()).toMatchObject({ port, token });
    for (const l of lines) expect(existsSync(join(f.stateDir, "forum-inbox", s, `${l.uid}.json`))).toBe(true);
    const doc = await jsonOf(await f.req(`/api/sessions/${s}`));
    expect(doc.transcript.map((l: { uid: string }) => l.uid)).toEqual(lines.map((l) => l.uid));
  });

  test("a server whose binary changed on disk retires, and the next forum command starts a current one", async () => {
    const f = await start();
    const copy = join(f.bin, "vx");
    copyFileSync(VX_BIN, copy);
    chmodSync(copy, 0o755);
    const run = async (args: string[]) => {
      const p = Bun.spawn([copy, "forum", ...args], { cwd: f.project, env: f.env, stdout: "pipe", stderr: "pipe" });
      const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
      return { out, code };
    };
    expect((await run(["board"])).code).toBe(0);
    const { pid } = f.info();
    // A rebuild replaces the file: a new one renamed over the old.
    copyFileSync(VX_BIN, `${copy}.new`);
    chmodSync(`${copy}.new`, 0o755);
    renameSync(`${copy}.new`, copy);
    await waitFor(() => !alive(pid), 15_000, "the stale server to retire");
    expect(readFileSync(join(f.root, "forum", "server.log"), "utf8")).toContain(`forum: server ${pid} stopping: its binary changed`);
    expect((await run(["board"])).code).toBe(0);
    expect(f.info().pid).not.toBe(pid);
    expect(alive(f.info().pid)).toBe(true);
  });
});
