// The forum in a real browser (FOR-11): Debian's chromium driven by playwright-core, against the
// compiled binary. A review round trip with a live commander await, the artifact sandbox seen
// from inside the page, and the live board; the screenshots the README shows are taken here.
// Run with `bun run test:browser`; skipped, saying so, when no chromium is installed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { stopSentinel } from "../await-kit";
import { type Forum, forum, writePlan } from "../forum-kit";
import { CHROMIUM } from "./chromium";
import { REPO, VX_BIN, git, taskFixture, vx, waitFor, writeTaskFile } from "../helpers";

// The README's screenshots are rewritten only when asked (UPDATE_SCREENSHOTS=1; not VX_*, which the preload clears): a plain run
// takes them into a temp dir it removes, so it leaves the checkout as it found it.
const IMG = process.env.UPDATE_SCREENSHOTS === "1" ? join(REPO, "docs", "img") : mkdtempSync(join(tmpdir(), "vx-forum-shots-"));
afterAll(() => {
  if (IMG !== join(REPO, "docs", "img")) rmSync(IMG, { recursive: true, force: true });
});
const PLAN = `# Plan: the forum

The general reviews what the commander shows, and answers in the browser.

1. **Server**: one per state root, 127.0.0.1 only, a key header, never a cookie.
2. **Review**: artifact, transcript, feedback box.
3. **Board**: every soldier live.

| Step | Owner | Status |
| --- | --- | --- |
| server | soldier 1 | done |
| board | soldier 2 | running |
`;

describe.skipIf(!CHROMIUM)("the forum in chromium (FOR-11)", () => {
  let browser: Browser;
  let f: Forum;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    f = await forum();
  });
  afterAll(async () => {
    await browser?.close();
    if (f) {
      await f.stop();
      await stopSentinel(f.root);
      f[Symbol.dispose]();
    }
  });

  test("review: the rendered plan, feedback wakes the await, the reply shows live, --ack clears the next wake", async () => {
    writePlan(f, PLAN);
    const url = await f.open(["plan.md"]);
    const session = url.pathname.split("/")[2] as string;
    const awaitProc = Bun.spawn([VX_BIN, "sentinel", "await"], { cwd: f.project, env: f.env, stdout: "pipe", stderr: "pipe" });
    await waitFor(
      () =>
        Bun.spawnSync(["ls", join(f.root, "sentinel-awaiters")])
          .stdout.toString()
          .includes(`${awaitProc.pid}.json`),
      10_000,
      "the await to register",
    );

    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    await page.goto(url.toString());
    // The link's one-time code went for the tab's key; the address bar no longer shows it.
    await page.locator("#live", { hasText: "live" }).waitFor();
    expect(page.url()).toBe(`${f.base()}${url.pathname}`);
    const frame = page.frameLocator("#artifact");
    await frame.locator("strong", { hasText: "Server" }).waitFor({ timeout: 10_000 });
    expect(await frame.locator("table td").first().textContent()).toBe("server");
    await page.locator("#live", { hasText: "live" }).waitFor();

    await page.fill("#text", "Step 3 should also show each soldier's diff stat.");
    await page.click("#send");
    await page.locator("#transcript li.general", { hasText: "diff stat" }).waitFor({ timeout: 10_000 });
    expect(await page.textContent("#status")).toBe("sent");
    expect(await awaitProc.exited).toBe(2);
    const reason = await new Response(awaitProc.stderr).text();
    expect(reason).toContain("forum session plan.md: 1 new message (ended: false). Run vx forum inbox.");

    const inbox = JSON.parse((await f.run(["inbox", "--json"])).stdout);
    expect(inbox.sessions[0].messages[0].text).toBe("Step 3 should also show each soldier's diff stat.");
    const replied = performance.now();
    expect((await f.run(["reply", "plan.md", "Added: the board shows git diff --stat per soldier."])).code).toBe(0);
    await page.locator("#transcript li.commander", { hasText: "git diff --stat" }).waitFor({ timeout: 1000 + (performance.now() - replied) });

    // The commander revises the file: the frame shows the new version without a reload by hand.
    writePlan(f, PLAN.replace("3. **Board**: every soldier live.", "3. **Board**: every soldier live, with its diff stat."));
    await frame.locator("li", { hasText: "with its diff stat" }).waitFor({ timeout: 10_000 });

    // A second message, acknowledged without a reply: the wake goes.
    await page.fill("#text", "Looks good, go ahead.");
    await page.click("#send");
    await page.locator("#transcript li.general", { hasText: "go ahead" }).waitFor({ timeout: 10_000 });
    const wake = join(f.stateDir, "wakes", "forum", `${session}.json`);
    expect(await Bun.file(wake).exists()).toBe(true);
    const uid = JSON.parse((await f.run(["inbox", "--json"])).stdout).sessions[0].messages[0].uid;
    expect(await f.run(["inbox", "--ack", uid])).toMatchObject({ code: 0, stdout: `acked ${uid}\n` });
    expect(await Bun.file(wake).exists()).toBe(false);

    mkdirSync(IMG, { recursive: true });
    await page.screenshot({ path: join(IMG, "forum-review.png") });

    // Ended: the page says so and takes no more feedback.
    expect((await f.run(["end", "plan.md"])).code).toBe(0);
    await page.locator("#ended").waitFor({ state: "visible", timeout: 10_000 });
    expect(await page.isDisabled("#send")).toBe(true);
    await page.close();
    // The await started a sentinel; the board's tasks below have no pane it could find.
    await stopSentinel(f.root);
  });

  test("an artifact's script cannot read the API or the cookie; the page shows a refusal it keeps the text for", async () => {
    writeFileSync(
      join(f.project, "probe.html"),
      `<!doctype html><body><p id="out">running</p><script>
const out = document.getElementById("out");
let cookie;
try { cookie = "COOKIE:" + document.cookie; } catch (e) { cookie = "NO-COOKIE"; }
fetch("/api/sessions").then((r) => r.text()).then((t) => { out.textContent = "READ " + t + " " + cookie; })
  .catch(() => { out.textContent = "BLOCKED " + cookie; });
</script></body>`,
    );
    const url = await f.open(["probe.html"]);
    const page = await browser.newPage();
    await page.goto(url.toString());
    const out = page.frameLocator("#artifact").locator("#out");
    await waitFor(async () => (await out.textContent()) !== "running", 10_000, "the probe to finish");
    expect(await out.textContent()).toBe("BLOCKED NO-COOKIE");
    // A message over the limit: refused with the reason, the text kept for a retry.
    const long = "x".repeat(20001);
    await page.fill("#text", long);
    await page.click("#send");
    await page.locator("#status", { hasText: "over the 20000-byte limit" }).waitFor({ timeout: 10_000 });
    expect(await page.inputValue("#text")).toBe(long);
    expect(await page.locator("#transcript li").count()).toBe(0);
    await page.close();
  });

  test("the board: every task live, a status change shown within 2 s, a box that messages the commander", async () => {
    git(f.project, "checkout", "-q", "-b", "vx/board-live");
    writeFileSync(join(f.project, "board.ts"), "export const board = 1;\n".repeat(12));
    git(f.project, "add", "board.ts");
    git(f.project, "commit", "-q", "-m", "board");
    git(f.project, "checkout", "-q", "main");
    const now = new Date().toISOString();
    const tasks = [
      taskFixture({
        id: "a1b2c3d4e5f60718",
        prompt: "Build the live board\nwith SSE",
        status: "running",
        harness: "claude",
        backend: "tmux",
        camp_branch: "vx/board-live",
        camp_base: "main",
        created_at: now,
        updated_at: now,
        output: "Reading src/forum/board.ts\nWriting the table\nRunning bun test",
      }),
      taskFixture({
        id: "0f1e2d3c4b5a6978",
        prompt: "Pin marked and render Markdown",
        status: "done",
        harness: "codex",
        backend: "herdr",
        machine: "gpu-box",
        created_at: now,
        updated_at: now,
        output: "All 12 tests pass.\nReady to land.",
      }),
      taskFixture({
        id: "9988776655443322",
        kind: "scout",
        prompt: "Which port should the forum prefer?",
        status: "blocked",
        harness: "pi",
        backend: "tmux",
        created_at: now,
        updated_at: now,
        decision: { question: "Keep the last port or pick a new one?", options: ["keep", "new"], asked_at: now },
      }),
    ];
    for (const t of tasks) writeTaskFile(f.home, f.project, t);
    const url = await f.open(["board"]);
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    await page.goto(url.toString());
    const row = page.locator('.card[data-task="a1b2c3d4e5f60718"]');
    await row.waitFor({ timeout: 10_000 });
    expect(await row.getAttribute("data-status")).toBe("running");
    expect(await row.textContent()).toContain("1 file changed, 12 insertions(+)");
    expect(await page.textContent('.card[data-task="9988776655443322"]')).toContain("Keep the last port or pick a new one?");
    // A soldier on another machine says where (MCH-09).
    expect(await page.textContent('.card[data-task="0f1e2d3c4b5a6978"]')).toContain("on machine gpu-box");

    await page.fill("section.project textarea", "Land the board when it is green.");
    await page.click("section.project button");
    await page.locator("section.project .status", { hasText: "sent" }).waitFor({ timeout: 10_000 });
    const inbox = JSON.parse((await f.run(["inbox", "--json"])).stdout);
    expect(inbox.sessions).toContainEqual(expect.objectContaining({ session: "general", file: "board", messages: [expect.objectContaining({ text: "Land the board when it is green." })] }));
    // The message's wake is still true (unread): counted, in the strip and the project's line (the board's own test: board.test.ts).
    await page.locator('.counts li[data-count="wakes"] b', { hasText: /^1$/ }).waitFor({ timeout: 10_000 });
    expect(await page.textContent("section.project .meta")).toContain("wakes waiting: 1");

    const changed = performance.now();
    writeTaskFile(f.home, f.project, { ...tasks[0], status: "done", updated_at: new Date().toISOString() });
    await page.locator('.card[data-task="a1b2c3d4e5f60718"][data-status="done"]').waitFor({ timeout: 2000 + (performance.now() - changed) });
    await page.close();
    expect((await vx(["forum", "inbox", "--ack", inbox.sessions.find((s: { session: string }) => s.session === "general").messages[0].uid], { cwd: f.project, env: f.env })).code).toBe(0);
  });
});
