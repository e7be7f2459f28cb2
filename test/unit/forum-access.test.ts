// Who gets into the forum and what its artifact frame gets (FOR-06): the access decisions, the
// one-time link and view codes (on a fake clock, one that steps back included), and the artifact
// made whole from its own directory tree (a real git repository decides what is ignored).
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { admit, changeProblem, hostAllowed, pageKey } from "../../src/forum/access";
import { serveArtifact } from "../../src/forum/artifact";
import { createViews, linkLive, mintLink, spendLink, sweepLinks, writeOpener } from "../../src/forum/codes";
import { inlineArtifact, resolveRef } from "../../src/forum/inline";
import { forumPaths } from "../../src/forum/paths";
import { realExec } from "../../src/exec";
import { git } from "../helpers";

const gate = { port: 4321, token: "a".repeat(64) };
const h = (o: Record<string, string>) => new Headers(o);
const host = { host: "127.0.0.1:4321" };
const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-forum-access-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("access (FOR-06)", () => {
  test("Host must name this server exactly, on every path", () => {
    expect(hostAllowed("127.0.0.1:4321", 4321)).toBe(true);
    expect(hostAllowed("localhost:4321", 4321)).toBe(true);
    for (const bad of [null, "127.0.0.1", "evil.test:4321", "127.0.0.1:4322", "LOCALHOST:4321x"]) expect(hostAllowed(bad, 4321)).toBe(false);
    for (const path of ["/", "/api/board", "/a/x/y/z"]) {
      expect(admit("GET", new URL(`http://x${path}`), h({ host: "evil.test:4321", authorization: `Bearer ${gate.token}` }), gate)).toMatchObject({ kind: "refuse", status: 421 });
    }
  });

  test("the API takes the key header only: a cookie, even holding the token, is never read", () => {
    const api = new URL("http://x/api/board");
    const key = pageKey(gate);
    expect(admit("GET", api, h({ ...host, authorization: `Bearer ${key}` }), gate)).toEqual({ kind: "in" });
    expect(admit("GET", api, h({ ...host, authorization: `Bearer ${gate.token}` }), gate)).toEqual({ kind: "in" });
    for (const headers of [
      {},
      { cookie: `vx_forum_4321=${gate.token}` },
      { cookie: `vx_forum_4321=${key}` },
      { authorization: `Bearer ${"b".repeat(64)}` },
      { authorization: `bearer ${key}` },
      { authorization: key },
    ] as Record<string, string>[]) {
      expect(admit("GET", api, h({ ...host, ...headers }), gate)).toMatchObject({ kind: "refuse", status: 403 });
    }
    expect(admit("POST", new URL("http://x/api/sessions/a/messages"), h({ ...host, cookie: `vx_forum_4321=${gate.token}` }), gate)).toMatchObject({ status: 403 });
  });

  test("without a key: the static pages, the login and an artifact view (its code is checked by the route), nothing else", () => {
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/s/plan.md-0a1b2c3d"],
      ["GET", "/assets/forum.js"],
      ["GET", "/assets/board.js"],
      ["GET", "/assets/cards.js"],
      ["HEAD", "/assets/forum.css"],
      ["POST", "/api/login"],
      ["GET", "/a/s/c/plan.md"],
    ]) {
      expect(admit(method as string, new URL(`http://x${path}`), h(host), gate)).toEqual({ kind: "in" });
    }
    for (const [method, path] of [
      ["GET", "/api/events"],
      ["GET", "/api/sessions"],
      ["GET", "/api/tasks/screen"],
      ["POST", "/"],
      ["POST", "/a/s/c/x"],
      ["GET", "/api/login"],
      ["GET", "/s/a/b"],
      ["PUT", "/api/login"],
    ]) {
      expect(admit(method as string, new URL(`http://x${path}`), h(host), gate)).toMatchObject({ kind: "refuse", status: 403 });
    }
  });

  test("the page key is bound to the token and the port", () => {
    expect(pageKey(gate)).toMatch(/^[0-9a-f]{64}$/);
    expect(pageKey(gate)).not.toBe(gate.token);
    expect(pageKey(gate)).not.toBe(pageKey({ ...gate, port: 4322 }));
    expect(pageKey(gate)).not.toBe(pageKey({ ...gate, token: "c".repeat(64) }));
    // A key taken at another port lets nobody into this one.
    expect(admit("GET", new URL("http://x/api/board"), h({ ...host, authorization: `Bearer ${pageKey({ ...gate, port: 4322 })}` }), gate)).toMatchObject({ status: 403 });
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
});

describe("one-time codes (FOR-06)", () => {
  const HOUR = 3600_000;
  test("a link is good before its expiry, and never when stamped further ahead than a link lives", () => {
    const t0 = Date.parse("2026-12-01T00:00:00Z");
    const at = (ms: number) => new Date(ms).toISOString();
    expect(linkLive(at(t0 + HOUR), t0, 8 * HOUR)).toBe(true);
    expect(linkLive(at(t0 + HOUR), t0 + HOUR, 8 * HOUR)).toBe(false);
    expect(linkLive(at(t0 + HOUR), t0 + 2 * HOUR, 8 * HOUR)).toBe(false);
    // The clock stepped back a day after the link was made: not a day longer.
    expect(linkLive(at(t0 + HOUR), t0 - 24 * HOUR, 8 * HOUR)).toBe(false);
    expect(linkLive("not a time", t0, 8 * HOUR)).toBe(false);
  });

  test("a link's code is spent by its first use, with its opener page; the sweep takes the expired and the unreadable", () => {
    mkdirSync(join(base, "codes"));
    const fp = forumPaths(join(base, "codes", ".vexillum"));
    const now = Date.parse("2026-12-01T00:00:00Z");
    const url = new URL(mintLink(fp, 4321, "/s/x", now, HOUR));
    expect(url.href).toMatch(/^http:\/\/127\.0\.0\.1:4321\/s\/x#c=[0-9a-f]{64}$/);
    const code = url.hash.slice(3);
    expect(readFileSync(join(fp.links, readdirSync(fp.links)[0] as string), "utf8")).not.toContain(code);
    expect(spendLink(fp, code, now + 1, 8 * HOUR)).toBe(true);
    expect(spendLink(fp, code, now + 2, 8 * HOUR)).toBe(false);
    for (const bad of ["", "x", code.toUpperCase(), `${code}0`, "../token"]) expect(spendLink(fp, bad, now, 8 * HOUR)).toBe(false);

    const opener = writeOpener(fp, 4321, "/", now, HOUR);
    const inner = new URL((readFileSync(opener, "utf8").match(/url=([^"]+)"/) as RegExpMatchArray)[1] as string);
    expect(spendLink(fp, inner.hash.slice(3), now, 8 * HOUR)).toBe(true);
    expect(existsSync(opener)).toBe(false);

    const live = writeOpener(fp, 4321, "/", now, HOUR);
    mintLink(fp, 4321, "/", now - 2 * HOUR, HOUR);
    writeFileSync(join(fp.links, `${"f".repeat(64)}.json`), "{not json");
    writeFileSync(join(fp.openers, `${"e".repeat(32)}.html`), "left by a kill");
    const lines: string[] = [];
    sweepLinks(fp, now, 8 * HOUR, (l) => lines.push(l));
    expect(readdirSync(fp.links)).toHaveLength(1);
    expect(readdirSync(fp.openers)).toEqual([live.split("/").pop() as string]);
    expect(lines).toEqual([expect.stringContaining("not a link record vx wrote")]);
    sweepLinks(fp, now + 2 * HOUR, 8 * HOUR, () => {});
    expect(readdirSync(fp.links)).toEqual([]);
    expect(readdirSync(fp.openers)).toEqual([]);
  });

  test("a view code: once, for its session, within its life, at most `cap` held (the oldest goes)", () => {
    const views = createViews(60_000, 3);
    const t0 = 1_000_000;
    const a = views.mint("s1", t0);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(views.spend(a, t0 + 1)).toBe("s1");
    expect(views.spend(a, t0 + 2)).toBeUndefined();
    const late = views.mint("s1", t0);
    expect(views.spend(late, t0 + 60_000)).toBeUndefined();
    // Minted before the clock stepped back an hour: not good for an hour more.
    const back = views.mint("s1", t0);
    expect(views.spend(back, t0 - 3600_000)).toBeUndefined();
    const codes = [1, 2, 3, 4].map((i) => views.mint(`s${i}`, t0));
    expect(views.spend(codes[0] as string, t0)).toBeUndefined();
    expect(codes.slice(1).map((c) => views.spend(c, t0))).toEqual(["s2", "s3", "s4"]);
  });
});

describe("the artifact made whole (FOR-06)", () => {
  test("references resolve inside the artifact's directory only", () => {
    expect(resolveRef("a/b.png", [])).toEqual(["a", "b.png"]);
    expect(resolveRef("./b.png?v=1#x", ["d"])).toEqual(["d", "b.png"]);
    expect(resolveRef("../b.png", ["d"])).toEqual(["b.png"]);
    expect(resolveRef("%61.png", [])).toEqual(["a.png"]);
    for (const out of ["../b.png", "d/../../b.png", "%2e%2e/b.png", "/b.png", "\\b.png", "//evil/b.png", "http://x/b.png", "data:x", "javascript:x", "#top", "", "a%2fb.png", "%zz.png", "a%00.png"]) {
      expect(resolveRef(out, [])).toBeUndefined();
    }
  });

  test("its own directory's plain files inlined; dotfiles, .git, git-ignored files, links out and parents left as written", async () => {
    const project = join(base, "project");
    const dir = join(project, "docs");
    mkdirSync(join(dir, "img"), { recursive: true });
    git(project, "init", "-q");
    writeFileSync(join(project, ".gitignore"), "docs/ignored.js\ndocs/out/\n");
    mkdirSync(join(dir, "out"));
    writeFileSync(join(dir, "out", "built.js"), "ignored dir");
    writeFileSync(join(dir, "ignored.js"), "ignored file");
    writeFileSync(join(dir, ".hidden.js"), "hidden file");
    writeFileSync(join(project, "top.js"), "parent file");
    writeFileSync(join(dir, "img", "a.png"), "picture");
    writeFileSync(join(dir, "ok.js"), "script");
    writeFileSync(join(dir, "page.css"), "@import 'more.css'; b{background:url(\"img/a.png\")}");
    writeFileSync(join(dir, "more.css"), "i{background:url(../top.js)}");
    symlinkSync(join(project, "top.js"), join(dir, "up.js"));
    symlinkSync(join(dir, "ok.js"), join(dir, "alias.js"));
    symlinkSync(join(dir, ".hidden.js"), join(dir, "shown.js"));
    mkdirSync(join(project, ".git", "x"), { recursive: true });
    writeFileSync(join(dir, "notes.txt"), "plain text is not a type a page loads");
    const refs = ["ok.js", "alias.js", "img/a.png", "ignored.js", "out/built.js", ".hidden.js", "shown.js", "up.js", "../top.js", "../.git/config", "notes.txt", "missing.js"];
    const html = `<link rel=stylesheet href="page.css"><img srcset="img/a.png 1x, ../top.js 2x" src="nope.png"><p style="background:url(img/a.png)">x</p><style>q{background:url('img/a.png')}</style>${refs.map((r) => `<script src="${r}"></script>`).join("")}<a href="ok.js">a link stays a link</a>`;
    writeFileSync(join(dir, "index.html"), html);
    const out = await inlineArtifact(html, join(dir, "index.html"), project, realExec);
    const data = (s: string) => `data:${s.endsWith(".png") ? "image/png" : "text/javascript"};base64,${Buffer.from(readFileSync(join(dir, s))).toString("base64")}`;
    expect(out).toContain(`<script src="${data("ok.js")}"></script><script src="${data("ok.js")}"></script>`);
    expect(out).toContain(`srcset="${data("img/a.png")} 1x, ../top.js 2x"`);
    expect(out).toContain(`style="background:url(&quot;${data("img/a.png")}&quot;)"`);
    expect(out).toContain(`q{background:url("${data("img/a.png")}")}`);
    for (const r of refs.slice(3)) expect(out).toContain(`<script src="${r}"></script>`);
    expect(out).toContain('<a href="ok.js">');
    const sheet = (out.match(/href="data:text\/css;base64,([^"]+)"/) as RegExpMatchArray)[1] as string;
    const css = Buffer.from(sheet, "base64").toString();
    expect(css).toContain(`b{background:url("${data("img/a.png")}")}`);
    const imported = Buffer.from((css.match(/@import url\("data:text\/css;base64,([^"]+)"\)/) as RegExpMatchArray)[1] as string, "base64").toString();
    expect(imported).toBe("i{background:url(../top.js)}");
    for (const secret of ["ignored dir", "ignored file", "hidden file", "parent file"].map((t) => Buffer.from(t).toString("base64"))) expect(out + css).not.toContain(secret);
  });

  test("the served artifact: Markdown rendered and made whole, the file resolved inside the project, a notice otherwise", async () => {
    const project = join(base, "md");
    mkdirSync(join(project, "d"), { recursive: true });
    git(project, "init", "-q");
    writeFileSync(join(base, "secret.md"), "secret");
    writeFileSync(join(project, "d", "a.md"), "# T\n\n![p](p.png)\n<script>x()</script>\n");
    writeFileSync(join(project, "d", "p.png"), "png");
    symlinkSync(join(base, "secret.md"), join(project, "d", "link.md"));
    const md = await serveArtifact(project, "d/a.md", realExec);
    expect(md.status).toBe(200);
    expect(md.headers.get("content-security-policy")).toStartWith("sandbox allow-scripts;");
    const text = await md.text();
    expect(text).toContain("<h1>T</h1>");
    expect(text).toContain(`src="data:image/png;base64,${Buffer.from("png").toString("base64")}"`);
    const out = await serveArtifact(project, "d/link.md", realExec);
    expect(out.status).toBe(403);
    expect(await out.text()).not.toContain("secret</");
    const gone = await serveArtifact(project, "d/none.md", realExec);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain("d/none.md is not there");
  });
});
