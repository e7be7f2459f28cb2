// The forum server end to end (FOR-05..08, FOR-10, FOR-12): the compiled binary, real HTTP from
// outside a browser: the access rules, review sessions, and a server killed with SIGKILL while
// messages arrive.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Forum, forum, jsonOf, writePlan } from "../forum-kit";
import { VX_BIN, alive, vx, waitFor, writeExecutable } from "../helpers";

let current: Forum | undefined;
afterEach(async () => {
  if (current) await current.stop();
  current?.[Symbol.dispose]();
  current = undefined;
});

const sessionOf = (url: URL) => url.pathname.split("/")[2] as string;

function inboxFiles(f: Forum, session: string): string[] {
  const dir = join(f.stateDir, "forum-inbox", session);
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(".json")) : [];
}

describe("forum access (FOR-06)", () => {
  test("no token: 403; the token is traded for an HttpOnly SameSite=Strict cookie and a clean redirect; the cookie lets in", async () => {
    current = await forum();
    const f = current;
    writePlan(f);
    const url = await f.open(["plan.md"]);
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.searchParams.get("t")).toBe(f.info().token);
    // Nothing: 403, on a page and on the API.
    for (const path of ["/", "/api/sessions", url.pathname]) {
      expect((await fetch(`${f.base()}${path}`, { redirect: "manual" })).status).toBe(403);
    }
    // A wrong token: 403.
    expect((await fetch(`${f.base()}/?t=${"0".repeat(64)}`, { redirect: "manual" })).status).toBe(403);
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(url.pathname);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toContain(`vx_forum_${f.info().port}=${f.info().token}`);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    const page = await f.req(url.pathname);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('sandbox="allow-scripts"');
  });

  test("a foreign Host (DNS rebinding) gets 421 even with the token or cookie; localhost is let in", async () => {
    current = await forum();
    const f = current;
    await f.open(["board"]);
    const port = f.info().port;
    for (const host of [`evil.example:${port}`, "127.0.0.1", `127.0.0.1:${port + 1}`]) {
      expect((await f.req("/api/sessions", { headers: { host } })).status).toBe(421);
      expect((await fetch(`${f.base()}/?t=${f.info().token}`, { headers: { host }, redirect: "manual" })).status).toBe(421);
    }
    expect((await f.req("/api/sessions", { headers: { host: `localhost:${port}` } })).status).toBe(200);
  });

  test("a change needs POST, JSON and a matching Origin; a cross-origin POST writes nothing", async () => {
    current = await forum();
    const f = current;
    writePlan(f);
    const s = sessionOf(await f.open(["plan.md"]));
    const path = `/api/sessions/${s}/messages`;
    const refused = [
      await f.post(path, { text: "from evil" }, { origin: "http://evil.example" }),
      await f.post(path, { text: "no origin" }, { origin: "" }),
      await f.post(path, { text: "as a form" }, { "content-type": "application/x-www-form-urlencoded" }),
      await f.post(path, { text: "text/plain" }, { "content-type": "text/plain" }),
    ];
    for (const r of refused) expect(r.status).toBe(403);
    expect((await f.req(path, { method: "PUT", body: "{}", headers: { "content-type": "application/json", origin: f.base() } })).status).toBe(405);
    expect(inboxFiles(f, s)).toEqual([]);
    expect((await f.post(path, { text: "from the page" })).status).toBe(201);
    expect(inboxFiles(f, s)).toHaveLength(1);
  });

  test("artifacts: sandboxed CSP, no cookie needed but the session's key, no ../ and no link out of the project", async () => {
    current = await forum();
    const f = current;
    writePlan(f);
    mkdirSync(join(f.project, "docs"));
    writeFileSync(join(f.home, "secret.txt"), "top secret\n");
    symlinkSync(join(f.home, "secret.txt"), join(f.project, "docs", "out.txt"));
    writeFileSync(join(f.project, "docs", "in.txt"), "inside\n");
    const s = sessionOf(await f.open(["plan.md"]));
    const doc = await jsonOf(await f.req(`/api/sessions/${s}`));
    const art = await fetch(`${f.base()}${doc.artifact_url}`);
    expect(art.status).toBe(200);
    expect(art.headers.get("content-security-policy")).toContain("sandbox allow-scripts");
    expect(art.headers.get("content-security-policy")).not.toContain("allow-same-origin");
    expect(await art.text()).toContain("<strong>forum</strong>");
    const prefix = doc.artifact_url.replace(/plan\.md$/, "");
    expect((await fetch(`${f.base()}${prefix}docs/in.txt`)).status).toBe(200);
    const link = await fetch(`${f.base()}${prefix}docs/out.txt`);
    expect(link.status).toBe(403);
    expect(await link.text()).not.toContain("top secret");
    for (const bad of ["..%2F..%2Fhome%2Fsecret.txt", "docs/..%2F..%2Fhome%2Fsecret.txt", "%2E%2E/home/secret.txt"]) {
      const r = await fetch(`${f.base()}${prefix}${bad}`);
      expect(r.status).toBe(403);
      expect(await r.text()).not.toContain("top secret");
    }
    // Another session's key, or none: 403.
    expect((await fetch(`${f.base()}/a/${s}/${"0".repeat(32)}/plan.md`)).status).toBe(403);
    // A missing file: a notice, not an error page.
    const gone = await fetch(`${f.base()}${prefix}nothing.md`);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain("nothing.md is not there");
  });

  test("vx forum refuses what it cannot show, and files outside the project", async () => {
    current = await forum();
    const f = current;
    writeFileSync(join(f.project, "a.pdf"), "%PDF");
    writeFileSync(join(f.home, "outside.md"), "# no\n");
    expect(await f.run(["a.pdf"])).toMatchObject({ code: 64, stderr: expect.stringContaining("vx: forum cannot show a.pdf: pdf is not one of html, md, svg, png, jpg, txt") });
    expect(await f.run([join(f.home, "outside.md")])).toMatchObject({ code: 64, stderr: expect.stringContaining("it is outside this project") });
    expect(await f.run(["missing.md"])).toMatchObject({ code: 64, stderr: expect.stringContaining("forum cannot show missing.md: no such file") });
    expect(await f.run(["bogus"])).toMatchObject({ code: 64, stderr: expect.stringContaining('unknown forum subcommand "bogus"') });
    expect(existsSync(join(f.root, "forum", "server.json"))).toBe(false);
  });
});

describe("review sessions (FOR-07, FOR-08, FOR-10)", () => {
  test("a message is transcript, inbox and wake before its 201; reply acks it; end marks the wake ended and refuses more", async () => {
    current = await forum();
    const f = current;
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
    current = await forum();
    const f = current;
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
    current = await forum();
    const f = current;
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
    current = await forum();
    const f = current;
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
    expect(nameless.stderr).toBe(`vx: a forum server holds ${join(f.root, "forum", "server.lock")} but ${infoPath} names none - end that 'vx forum serve' process yourself ('fuser ${join(f.root, "forum", "server.lock")}' names its pid), then run 'vx forum stop' again\n`);
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
    current = await forum({ VX_TIME_SCALE: "0.0001" });
    const f = current;
    await f.open(["board"]);
    const { pid } = f.info();
    await waitFor(() => !alive(pid), 30_000, "the idle server to exit");
    expect(readFileSync(join(f.root, "forum", "server.log"), "utf8")).toContain(`forum: server ${pid} stopping: idle with no open page`);
    expect(existsSync(join(f.root, "forum", "server.json"))).toBe(false);
  });

  test("kill -9 while messages arrive: every 201 is on disk in all three places; a restart delivers the rest and serves the same transcript", async () => {
    current = await forum();
    const f = current;
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
    const lines = readFileSync(join(f.root, "forums", s, "transcript.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
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
    current = await forum();
    const f = current;
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
