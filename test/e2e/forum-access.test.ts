// The forum's doors end to end (FOR-06): the compiled binary and real HTTP from outside a browser:
// one-time links and the key header (never a cookie), --open's private page, the Host and change
// rules, and the one-time artifact view with only its own directory's plain files inlined. The
// same doors in a real browser, against another local user: test/browser/forum-security.test.ts.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { forumEachTest, inboxFiles, jsonOf, sessionOf, writePlan } from "../forum-kit";
import { vx, waitFor, writeExecutable } from "../helpers";

const start = forumEachTest();

describe("forum access (FOR-06)", () => {
  test("the printed link holds a one-time code, never the token; the API takes only the key header, never a cookie", async () => {
    const f = await start();
    writePlan(f);
    const url = await f.open(["plan.md"]);
    const { token, port } = f.info();
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.href).not.toContain(token);
    expect(url.search).toBe("");
    expect(url.hash).toMatch(/^#c=[0-9a-f]{64}$/);
    // The pages are static and hold nothing: anyone past the Host check gets them, with no cookie set.
    for (const path of ["/", url.pathname, "/assets/forum.js"]) {
      const page = await fetch(`${f.base()}${path}`, { redirect: "manual" });
      expect(page.status).toBe(200);
      expect(page.headers.get("set-cookie")).toBeNull();
      expect(await page.text()).not.toContain(token);
    }
    // The API: nothing, a cookie holding the token (what a browser sends to every port of
    // 127.0.0.1), a wrong key, or the key as a query parameter: 403.
    const cookie = `vx_forum_${port}=${token}`;
    for (const headers of [{}, { cookie }, { authorization: `Bearer ${"0".repeat(64)}` }, { authorization: `Basic ${token}` }] as Record<string, string>[]) {
      expect((await fetch(`${f.base()}/api/sessions`, { headers })).status).toBe(403);
    }
    expect((await fetch(`${f.base()}/api/sessions?t=${token}`, { headers: { cookie } })).status).toBe(403);
    expect((await f.post(`/api/sessions/${sessionOf(url)}/messages`, { text: "by cookie" }, { authorization: "", cookie })).status).toBe(403);
    expect(inboxFiles(f, sessionOf(url))).toEqual([]);
    // The login is a change: from another Origin it is refused and does not spend the code.
    expect((await f.login(url, { origin: "http://127.0.0.1:1" })).status).toBe(403);
    const res = await f.login(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toBeNull();
    const { key } = await jsonOf(res);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(key).not.toBe(token);
    const sessions = await fetch(`${f.base()}/api/sessions`, { headers: { authorization: `Bearer ${key}` } });
    expect(sessions.status).toBe(200);
    expect((await jsonOf(sessions)).sessions).toHaveLength(1);
    // Spent: the code that stays in the browser's history opens nothing.
    const again = await f.login(url);
    expect(again.status).toBe(403);
    expect((await jsonOf(again)).error).toContain("this link was used or has expired");
    expect(readdirSync(join(f.root, "forum", "links"))).toEqual([]);
  });

  test("the token an older vx set as a cookie (browsers may still hold and send it anywhere) is never used again", async () => {
    const f = await start();
    const old = "d".repeat(64);
    mkdirSync(join(f.root, "forum"), { recursive: true, mode: 0o700 });
    writeFileSync(join(f.root, "forum", "token"), `${old}\n`, { mode: 0o600 });
    await f.open(["board"]);
    expect(f.info().token).not.toBe(old);
    expect(existsSync(join(f.root, "forum", "token"))).toBe(false);
    expect((await f.req("/api/board", { headers: { authorization: `Bearer ${old}` } })).status).toBe(403);
    expect((await f.req("/api/board")).status).toBe(200);
  });

  test("a link past its expiry, or stamped to live longer than a link lives (a clock stepped back), lets nobody in", async () => {
    const f = await start();
    const url = await f.open(["board"]);
    const links = join(f.root, "forum", "links");
    const [name] = readdirSync(links);
    const path = join(links, name as string);
    // 8 hours at the kit's VX_TIME_SCALE of 0.01: 4.8 minutes.
    const rec = JSON.parse(readFileSync(path, "utf8"));
    expect(Math.abs(Date.parse(rec.expires_at) - Date.now() - 288_000)).toBeLessThan(60_000);
    for (const expires of [Date.now() - 1000, Date.now() + 3600 * 1000]) {
      writeFileSync(path, JSON.stringify({ expires_at: new Date(expires).toISOString() }));
      expect((await f.login(url)).status).toBe(403);
      expect(existsSync(path)).toBe(false);
    }
  });

  test("--open puts only the path of a 0600 page on the opener's command line (and so the browser's), which sends the browser to a link of its own", async () => {
    const f = await start({ DISPLAY: ":404", VX_TIME_SCALE: "1" });
    const seen = join(f.home, "opened");
    // What vx runs as the opener records its own command line (what ps shows every user) and stops.
    writeExecutable(join(f.bin, "xdg-open"), `#!/bin/sh\ntr '\\0' ' ' < /proc/$$/cmdline > "${seen}.tmp" && mv "${seen}.tmp" "${seen}"\n`);
    writePlan(f);
    const r = await vx(["forum", "plan.md", "--open"], { cwd: f.project, env: f.env });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    await waitFor(() => existsSync(seen), 10_000, "the opener to run");
    const argv = readFileSync(seen, "utf8").trim();
    const { token } = f.info();
    expect(argv).not.toContain(token);
    expect(argv).not.toMatch(/[0-9a-f]{64}/);
    const openers = join(f.root, "forum", "open");
    const [name] = readdirSync(openers);
    const file = join(openers, name as string);
    expect(argv).toBe(`/bin/sh ${join(f.bin, "xdg-open")} ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(openers).mode & 0o777).toBe(0o700);
    // The page holds a link of its own (not the one printed); trading it removes the page too.
    const printed = new URL((r.stdout.match(/^forum: (\S+)$/m) as RegExpMatchArray)[1] as string);
    const inFile = new URL((readFileSync(file, "utf8").match(/url=([^"]+)"/) as RegExpMatchArray)[1] as string);
    expect(inFile.pathname).toBe(printed.pathname);
    expect(inFile.hash).not.toBe(printed.hash);
    expect((await f.login(inFile)).status).toBe(200);
    expect(existsSync(file)).toBe(false);
    expect((await f.login(printed)).status).toBe(200);
  });

  test("a foreign Host (DNS rebinding) gets 421 even with the key, on pages and the login too; localhost is let in", async () => {
    const f = await start();
    const url = await f.open(["board"]);
    const port = f.info().port;
    for (const host of [`evil.example:${port}`, "127.0.0.1", `127.0.0.1:${port + 1}`]) {
      expect((await f.req("/api/sessions", { headers: { host } })).status).toBe(421);
      expect((await fetch(`${f.base()}/`, { headers: { host }, redirect: "manual" })).status).toBe(421);
      expect((await f.login(url, { host })).status).toBe(421);
    }
    expect((await f.login(url)).status).toBe(200);
    expect((await f.req("/api/sessions", { headers: { host: `localhost:${port}` } })).status).toBe(200);
  });

  test("a change needs POST, JSON and a matching Origin; a cross-origin POST writes nothing", async () => {
    const f = await start();
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

  test("an artifact view: one load per code, a policy that lets it send nothing, and only its own directory's plain files inlined", async () => {
    const f = await start();
    const dir = join(f.project, "docs", "report");
    mkdirSync(join(dir, "sub"), { recursive: true });
    mkdirSync(join(f.project, "src"));
    writeFileSync(join(f.project, ".env"), "SECRET_ENV=env-secret-1\n");
    writeFileSync(join(f.project, "src", "keys.js"), "window.k = 'js-secret-2';\n");
    writeFileSync(join(f.project, ".gitignore"), "docs/report/private.js\n");
    writeFileSync(join(dir, "private.js"), "window.p = 'ignored-secret-3';\n");
    writeFileSync(join(dir, ".hidden.js"), "window.h = 'hidden-secret-4';\n");
    writeFileSync(join(f.home, "outside.js"), "window.o = 'outside-secret-5';\n");
    symlinkSync(join(f.project, "src", "keys.js"), join(dir, "link-up.js"));
    symlinkSync(join(f.home, "outside.js"), join(dir, "link-out.js"));
    writeFileSync(join(dir, "sub", "app.js"), "window.a = 'inlined-app';\n");
    writeFileSync(join(dir, "pic.png"), "inlined-png");
    writeFileSync(join(dir, "font.woff2"), "inlined-font");
    writeFileSync(join(dir, "style.css"), "@font-face{src:url(font.woff2)} body{background:url('../../.env')}\n");
    const refs = [
      "sub/app.js",
      "pic.png",
      "style.css",
      "../../.env",
      "../../src/keys.js",
      "private.js",
      ".hidden.js",
      "link-up.js",
      "link-out.js",
      "%2e%2e/%2e%2e/src/keys.js",
      "/src/keys.js",
      "sub/../../../src/keys.js",
    ];
    writeFileSync(join(dir, "index.html"), `<!doctype html><link rel="stylesheet" href="style.css">${refs.map((r) => `<script src="${r}"></script><img src="${r}">`).join("")}\n`);
    const s = sessionOf(await f.open([join(dir, "index.html")]));
    const view = await f.post(`/api/sessions/${s}/view`, {});
    expect(view.status).toBe(201);
    const { url } = await jsonOf(view);
    expect(url).toMatch(new RegExp(`^/a/${s.replace(/\./g, "\\.")}/[0-9a-f]{64}/docs/report/index\\.html$`));
    // The frame's load needs no key (the frame cannot send one): the code is the permission, once.
    const art = await fetch(`${f.base()}${url}`);
    expect(art.status).toBe(200);
    const csp = art.headers.get("content-security-policy") ?? "";
    for (const part of ["sandbox allow-scripts;", "default-src 'none'", "connect-src 'none'", "img-src data: blob:;", "form-action 'none'", "frame-ancestors 'self'"]) expect(csp).toContain(part);
    expect(csp).not.toContain("allow-same-origin");
    expect(csp).not.toMatch(/https?:|'self' data|\*/);
    const html = await art.text();
    const inlined = [...html.matchAll(/data:[^;]+;base64,([A-Za-z0-9+/=]+)/g)].map((m) => Buffer.from(m[1] as string, "base64").toString());
    expect(inlined).toContain("window.a = 'inlined-app';\n");
    expect(inlined).toContain("inlined-png");
    // The stylesheet's font came in with it; its reference out of the directory stayed as written.
    expect(inlined.some((c) => c.includes("@font-face") && c.includes(Buffer.from("inlined-font").toString("base64")) && c.includes("url('../../.env')"))).toBe(true);
    for (const secret of ["env-secret-1", "js-secret-2", "ignored-secret-3", "hidden-secret-4", "outside-secret-5"]) {
      expect(html).not.toContain(secret);
      expect(inlined.join("\n")).not.toContain(secret);
    }
    for (const r of refs.slice(3)) expect(html).toContain(`<script src="${r}"></script>`);
    // Spent: the URL the frame's script can read loads nothing again, nor anything beside it.
    const prefix = url.replace(/index\.html$/, "");
    for (const path of [url, `${prefix}sub/app.js`, `${prefix}../../../.env`, `${prefix}%2e%2e/%2e%2e/%2e%2e/.env`, url.replace(/\/docs\/report\/index\.html$/, "/.env")]) {
      const r = await fetch(`${f.base()}${path}`);
      expect(r.status).toBe(403);
      const text = await r.text();
      expect(text).not.toContain("secret");
      expect(text).not.toContain("inlined");
    }
    // A code is for its session only, and a made-up one is nothing.
    const other = await jsonOf(await f.post(`/api/sessions/${s}/view`, {}));
    expect((await fetch(`${f.base()}${other.url.replace(`/a/${s}/`, "/a/general/")}`)).status).toBe(403);
    expect((await fetch(`${f.base()}/a/${s}/${"0".repeat(64)}/docs/report/index.html`)).status).toBe(403);
    // A view must be asked for with the key.
    expect((await fetch(`${f.base()}/api/sessions/${s}/view`, { method: "POST", body: "{}", headers: { "content-type": "application/json", origin: f.base() } })).status).toBe(403);
  });

  test("a Markdown artifact is rendered by the compiled vx (its renderer loaded only when one is shown)", async () => {
    const f = await start();
    writePlan(f);
    const s = sessionOf(await f.open(["plan.md"]));
    const { url } = await jsonOf(await f.post(`/api/sessions/${s}/view`, {}));
    const art = await fetch(`${f.base()}${url}`);
    expect(art.status).toBe(200);
    const html = await art.text();
    expect(html).toContain("<h1>The plan</h1>");
    expect(html).toContain("<strong>forum</strong>");
  });

  test("an artifact that is gone, or a link out of the project, is a notice, not an error page", async () => {
    const f = await start();
    writePlan(f);
    writeFileSync(join(f.home, "secret.md"), "top secret\n");
    const s = sessionOf(await f.open(["plan.md"]));
    const load = async () => fetch(`${f.base()}${(await jsonOf(await f.post(`/api/sessions/${s}/view`, {}))).url}`);
    rmSync(join(f.project, "plan.md"));
    const gone = await load();
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain("plan.md is not there");
    symlinkSync(join(f.home, "secret.md"), join(f.project, "plan.md"));
    const out = await load();
    expect(out.status).toBe(403);
    expect(await out.text()).not.toContain("top secret");
  });

  test("vx forum refuses what it cannot show, and files outside the project", async () => {
    const f = await start();
    writeFileSync(join(f.project, "a.pdf"), "%PDF");
    writeFileSync(join(f.home, "outside.md"), "# no\n");
    expect(await f.run(["a.pdf"])).toMatchObject({ code: 64, stderr: expect.stringContaining("vx: forum cannot show a.pdf: pdf is not one of html, md, svg, png, jpg, txt") });
    expect(await f.run([join(f.home, "outside.md")])).toMatchObject({ code: 64, stderr: expect.stringContaining("it is outside this project") });
    expect(await f.run(["missing.md"])).toMatchObject({ code: 64, stderr: expect.stringContaining("forum cannot show missing.md: no such file") });
    expect(await f.run(["bogus"])).toMatchObject({ code: 64, stderr: expect.stringContaining('unknown forum subcommand "bogus"') });
    expect(existsSync(join(f.root, "forum", "server.json"))).toBe(false);
  });
});
