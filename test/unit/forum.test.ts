// The forum's pure rules and its files (FOR-06, FOR-07, FOR-10): access decisions, session keys,
// message checks, the three writes of a message and their repair after a kill, artifact paths.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { admit, artifactKey, changeProblem, hostAllowed } from "../../src/forum/access";
import { serveProjectFile } from "../../src/forum/artifact";
import { sessionKey, sessionPaths } from "../../src/forum/paths";
import { messageProblem, openSession, postFromGeneral, readTranscript, recoverSession } from "../../src/forum/sessions";
import { projectPaths } from "../../src/state/paths";
import { unreadSessions } from "../../src/forum/inbox";
import { idleReason } from "../../src/forum/server";
import { DURATIONS } from "../../src/time";

const gate = { port: 4321, token: "a".repeat(64) };
const h = (o: Record<string, string>) => new Headers(o);

describe("access (FOR-06)", () => {
  test("Host must name this server exactly", () => {
    expect(hostAllowed("127.0.0.1:4321", 4321)).toBe(true);
    expect(hostAllowed("localhost:4321", 4321)).toBe(true);
    for (const bad of [null, "127.0.0.1", "evil.test:4321", "127.0.0.1:4322", "LOCALHOST:4321x"]) expect(hostAllowed(bad, 4321)).toBe(false);
    expect(admit(new URL(`http://x/?t=${gate.token}`), h({ host: "evil.test:4321" }), gate)).toMatchObject({ kind: "refuse", status: 421 });
  });

  test("token in the URL: exchanged for a cookie and a redirect without it; a wrong one or none: 403", () => {
    const v = admit(new URL(`http://x/s/abc?t=${gate.token}&k=1`), h({ host: "127.0.0.1:4321" }), gate);
    expect(v).toEqual({ kind: "exchange", location: "/s/abc?k=1", cookie: `vx_forum_4321=${gate.token}; HttpOnly; SameSite=Strict; Path=/` });
    expect(admit(new URL("http://x/?t=b"), h({ host: "127.0.0.1:4321" }), gate)).toMatchObject({ kind: "refuse", status: 403 });
    expect(admit(new URL("http://x/"), h({ host: "127.0.0.1:4321" }), gate)).toMatchObject({ kind: "refuse", status: 403 });
    expect(admit(new URL("http://x/"), h({ host: "127.0.0.1:4321", cookie: "vx_forum_4321=nope" }), gate)).toMatchObject({ status: 403 });
    expect(admit(new URL("http://x/"), h({ host: "127.0.0.1:4321", cookie: `a=1; vx_forum_4321=${gate.token}` }), gate)).toEqual({ kind: "in" });
    // Another server's cookie (another port) is not this one's.
    expect(admit(new URL("http://x/"), h({ host: "127.0.0.1:4321", cookie: `vx_forum_9999=${gate.token}` }), gate)).toMatchObject({ status: 403 });
  });

  test("a change: POST, JSON, and an Origin equal to the Host", () => {
    const ok = { host: "127.0.0.1:4321", origin: "http://127.0.0.1:4321", "content-type": "application/json; charset=utf-8" };
    expect(changeProblem("POST", h(ok))).toBeUndefined();
    expect(changeProblem("PUT", h(ok))).toContain("POST");
    expect(changeProblem("POST", h({ ...ok, "content-type": "text/plain" }))).toContain("JSON");
    expect(changeProblem("POST", h({ ...ok, origin: "http://localhost:4321" }))).toContain("Origin");
    expect(changeProblem("POST", h({ host: ok.host, "content-type": ok["content-type"] }))).toContain("Origin");
    expect(changeProblem("POST", h({ ...ok, origin: "null" }))).toContain("Origin");
  });

  test("the artifact key differs per session and per token", () => {
    expect(artifactKey(gate.token, "a")).not.toBe(artifactKey(gate.token, "b"));
    expect(artifactKey(gate.token, "a")).not.toBe(artifactKey("b".repeat(64), "a"));
    expect(artifactKey(gate.token, "a")).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("messages and sessions (FOR-07, FOR-10)", () => {
  test("session keys are safe names from the real path", () => {
    expect(sessionKey("/p/docs/plan.md")).toMatch(/^plan\.md-[0-9a-f]{8}$/);
    expect(sessionKey("/p/a/plan.md")).not.toBe(sessionKey("/p/b/plan.md"));
    expect(sessionKey("/p/we ird?#.md")).toMatch(/^we_ird__\.md-[0-9a-f]{8}$/);
  });

  test("message checks: empty, too long (in bytes), not text", () => {
    expect(messageProblem("hi")).toBeUndefined();
    expect(messageProblem(" \n")).toContain("empty");
    expect(messageProblem("é".repeat(10001))).toContain("20002 bytes");
    expect(messageProblem("x".repeat(20000))).toBeUndefined();
    expect(messageProblem(undefined)).toContain("text");
    expect(messageProblem("bad \uFFFD")).toContain("UTF-8");
  });

  test("a server killed after the transcript line: the restart writes the inbox message and the wake", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-forum-")));
    try {
      const root = join(base, "home", ".vexillum");
      const project = join(base, "p");
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, "plan.md"), "# p\n");
      const s = await openSession(root, project, join(project, "plan.md"), 1000);
      const { line } = await postFromGeneral(root, s, "first", 2000);
      // What a kill between the steps leaves: a line the inbox does not have.
      const orphan = { uid: "zz-orphan", from: "general", text: "second", at: "2026-12-01T00:00:03.000Z" };
      const tp = sessionPaths(root, s.session).transcript;
      writeFileSync(tp, `${readFileSync(tp, "utf8")}${JSON.stringify(orphan)}\n`);
      const paths = projectPaths(root, project);
      expect(unreadSessions(paths)[0]?.messages.map((m) => m.value.uid)).toEqual([line.uid]);
      expect(recoverSession(root, s, 5000)).toBe(1);
      expect(unreadSessions(paths)[0]?.messages.map((m) => m.value.uid)).toEqual([line.uid, "zz-orphan"]);
      const wake = JSON.parse(readFileSync(join(paths.forumWakesDir, `${s.session}.json`), "utf8"));
      expect(wake).toMatchObject({ session: s.session, file: "plan.md", count: 2 });
      expect(recoverSession(root, s, 6000)).toBe(0);
      expect(readTranscript(root, s.session).map((l) => l.text)).toEqual(["first", "second"]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("the idle limit (FOR-05)", () => {
  const limit = DURATIONS.forumIdle;
  test("exits only after 8 h with no open page and no activity", () => {
    expect(limit).toBe(8 * 3600 * 1000);
    const t0 = 1_000_000;
    expect(idleReason(t0 + limit - 1, t0, 0, limit)).toBeUndefined();
    expect(idleReason(t0 + limit, t0, 0, limit)).toBe("idle with no open page");
    // An open page keeps it, however long.
    expect(idleReason(t0 + 10 * limit, t0, 1, limit)).toBeUndefined();
    // Activity starts the wait again.
    expect(idleReason(t0 + limit, t0 + 1, 0, limit)).toBeUndefined();
  });
});

describe("artifact paths (FOR-06)", () => {
  test("inside the project only: no .., no link out; Markdown rendered; a missing file is a notice", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-forum-")));
    try {
      const project = join(base, "p");
      mkdirSync(join(project, "d"), { recursive: true });
      writeFileSync(join(base, "secret.txt"), "secret");
      writeFileSync(join(project, "d", "a.md"), "# T\n\n<script>x()</script>\n");
      symlinkSync(join(base, "secret.txt"), join(project, "d", "link.txt"));
      symlinkSync(join(project, "d", "a.md"), join(project, "inner.md"));
      const md = serveProjectFile(project, "d/a.md");
      expect(md.status).toBe(200);
      expect(md.headers.get("content-security-policy")).toStartWith("sandbox allow-scripts");
      expect(await md.text()).toContain("<h1>T</h1>");
      expect(serveProjectFile(project, "inner.md").status).toBe(200);
      for (const bad of ["../secret.txt", "d/../../secret.txt", "d/%2E%2E/%2E%2E/secret.txt", "d%2F..%2F..%2Fsecret.txt", "d/link.txt", "%E0%A4%A"]) {
        const r = serveProjectFile(project, bad);
        expect([400, 403]).toContain(r.status);
        expect(await r.text()).not.toBe("secret");
      }
      const gone = serveProjectFile(project, "d/none.md");
      expect(gone.status).toBe(404);
      expect(await gone.text()).toContain("d/none.md is not there");
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
