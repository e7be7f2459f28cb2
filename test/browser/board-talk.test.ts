// The board's conversation with a project's commander (FOR-08, FOR-09, FOR-13) in a real Chromium against the
// compiled binary: the general writes in the box, `vx forum reply board` answers and the line appears live,
// escaped; the "no commander listening" notice follows a real `vx sentinel await` starting and ending; at desktop
// and phone width and in dark mode.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import { stopSentinel } from "../await-kit";
import { type Forum, forum } from "../forum-kit";
import { VX_BIN, taskFixture, waitFor, writeTaskFile } from "../helpers";
import { CHROMIUM, pageAt } from "./chromium";

// The screenshots are for a person to look at: written to SHOTS_DIR when it is set, else thrown away.
const IMG = process.env.SHOTS_DIR || mkdtempSync(join(tmpdir(), "vx-board-talk-shots-"));
afterAll(() => {
  if (!process.env.SHOTS_DIR) rmSync(IMG, { recursive: true, force: true });
});

// Callbacks handed to page.evaluate run in the page (the project's types have no DOM).
declare const document: any;
declare function getComputedStyle(e: unknown): any;

const NOBODY = "No commander is listening: a message waits in the inbox until a commander reads it (vx forum inbox).";

describe.skipIf(!CHROMIUM)("the board's conversation with the commander (FOR-09, FOR-13)", () => {
  let browser: Browser;
  let f: Forum;
  const awaits: Bun.Subprocess[] = [];
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    f = await forum({ VX_TIME_SCALE: "1" });
    await f.open(["board"]);
  });
  afterAll(async () => {
    for (const a of awaits) {
      a.kill("SIGTERM");
      await a.exited;
    }
    await browser?.close();
    if (f) {
      await f.stop();
      await stopSentinel(f.root);
      f[Symbol.dispose]();
    }
  });

  async function open(width: number, colorScheme: "light" | "dark" = "light"): Promise<Page> {
    const page = await pageAt(browser, (await f.open(["board"])).toString(), width, ".project textarea", colorScheme);
    await page.locator("#live:not(.off)").waitFor({ timeout: 10_000 });
    return page;
  }

  const panel = ".project";
  const lines = (page: Page) =>
    page.$$eval(`${panel} .talk-lines li:not(.earlier)`, (ls) => ls.map((l) => [l.className, l.querySelector(".who")?.textContent?.split(" · ")[0], l.querySelector(".text")?.textContent]));

  /** A real `vx sentinel await` in the project, as a commander's Stop hook runs it. */
  async function startAwait(): Promise<Bun.Subprocess<"ignore", "ignore", "pipe">> {
    const a = Bun.spawn([VX_BIN, "sentinel", "await"], { cwd: f.project, env: f.env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    awaits.push(a);
    return a;
  }

  test("desktop: send from the box, see nobody listening, the commander's reply appears live and escaped; the notice follows a real await", async () => {
    const page = await open(1280);
    // Nobody listens yet: said next to the box.
    await page.getByText(NOBODY).waitFor({ timeout: 10_000 });
    expect(await page.isVisible(`${panel} .talk-lines`)).toBe(false); // no conversation yet
    // Refused in the page: nothing to send.
    await page.click(`${panel} button[type=submit]`);
    expect(await page.textContent(`${panel} .status`)).toBe("write something first");

    await page.fill(`${panel} textarea`, "Why is the <b>build</b> slow?");
    await page.click(`${panel} button[type=submit]`);
    await page.locator(`${panel} .status`, { hasText: "sent — waiting in the inbox, no commander is listening" }).waitFor({ timeout: 10_000 });
    expect(await page.inputValue(`${panel} textarea`)).toBe("");
    await page.locator(`${panel} .talk-lines li.general`).waitFor({ timeout: 10_000 });
    expect(await lines(page)).toEqual([["general", "you", "Why is the <b>build</b> slow?"]]);

    // The commander answers from its terminal; the page shows it without a reload.
    const r = await f.run(["reply", "board", "The cache was <i>cold</i>; warm now"]);
    expect(r.stdout).toMatch(/^replied on the board; acked \S+\n$/);
    await page.locator(`${panel} .talk-lines li.commander`).waitFor({ timeout: 10_000 });
    expect(await lines(page)).toEqual([
      ["general", "you", "Why is the <b>build</b> slow?"],
      ["commander", "commander", "The cache was <i>cold</i>; warm now"],
    ]);
    expect(await page.$$eval(`${panel} .talk-lines i, ${panel} .talk-lines b`, (e) => e.length)).toBe(0);
    // The newest at the bottom.
    const tops = await page.$$eval(`${panel} .talk-lines li`, (ls) => ls.map((l) => l.getBoundingClientRect().top));
    expect(tops[1]).toBeGreaterThan(tops[0] as number);

    // A commander starts listening: the notice goes.
    const a = await startAwait();
    await page.locator(`${panel} .unheard-note`).waitFor({ state: "hidden", timeout: 15_000 });
    await page.fill(`${panel} textarea`, "Land the parser first");
    await page.click(`${panel} button[type=submit]`);
    await page.locator(`${panel} .status`, { hasText: /^sent$/ }).waitFor({ timeout: 10_000 });
    // The await hears it and ends (its commander's turn begins): nobody listens until the next one.
    expect(await a.exited).toBe(2);
    expect(await new Response(a.stderr).text()).toContain("forum session board");
    await page.getByText(NOBODY).waitFor({ timeout: 15_000 });
    expect((await lines(page)).map((l) => l[2])).toEqual(["Why is the <b>build</b> slow?", "The cache was <i>cold</i>; warm now", "Land the parser first"]);
    mkdirSync(IMG, { recursive: true });
    await page.screenshot({ path: join(IMG, "board-talk.png"), fullPage: true });
    await page.close();
  }, 120_000);

  test("phone: the conversation and the notice fit the 390-px screen", async () => {
    expect((await f.run(["reply", "board", `A long line: ${"word ".repeat(80)}and a long path /${"segment".repeat(30)}`])).code).toBe(0);
    const page = await open(390);
    await page.locator(`${panel} .talk-lines li.commander`).first().waitFor({ timeout: 10_000 });
    await page.getByText(NOBODY).waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => document.scrollingElement?.scrollWidth)).toBeLessThanOrEqual(390);
    const right = await page.$eval(`${panel} .talk-lines`, (e) => e.getBoundingClientRect().right);
    expect(right).toBeLessThanOrEqual(390);
    // Scrolled to the newest line, at the bottom.
    await waitFor(
      () => page.$eval(`${panel} .talk-lines`, (e) => e.scrollHeight > e.clientHeight && e.scrollTop + e.clientHeight >= e.scrollHeight - 2),
      10_000,
      "the conversation scrolled to its newest line",
    );
    // A reader scrolled back keeps the place through a live re-render (a soldier appears).
    await page.$eval(`${panel} .talk-lines`, (e) => {
      e.scrollTop = 40;
    });
    writeTaskFile(f.home, f.project, taskFixture({ id: "1234567890abcdef", prompt: "Port the parser", status: "running" }));
    await page.locator('.card[data-task="1234567890abcdef"]').waitFor({ timeout: 10_000 });
    await waitFor(() => page.$eval(`${panel} .talk-lines`, (e) => Math.abs(e.scrollTop - 40) <= 1), 10_000, "the reader's place kept");
    await page.screenshot({ path: join(IMG, "board-talk-phone.png"), fullPage: true });
    await page.close();
  }, 60_000);

  test("dark mode: the conversation and the notice take the dark colours", async () => {
    const page = await open(1280, "dark");
    await page.getByText(NOBODY).waitFor({ timeout: 10_000 });
    const colours = await page.evaluate(() => {
      const note = getComputedStyle(document.querySelector(".unheard-note"));
      const general = getComputedStyle(document.querySelector(".talk-lines li.general"));
      const commander = getComputedStyle(document.querySelector(".talk-lines li.commander"));
      return { note: [note.color, note.backgroundColor], general: general.backgroundColor, commander: commander.backgroundColor };
    });
    // The dark set's --warn on --warn-bg, --accent-bg and --good-bg (pairs held by test/unit/forum-contrast).
    expect(colours).toEqual({ note: ["rgb(245, 184, 107)", "rgb(58, 42, 20)"], general: "rgb(35, 48, 77)", commander: "rgb(23, 52, 37)" });
    await page.screenshot({ path: join(IMG, "board-talk-dark.png"), fullPage: true });
    await page.close();
  }, 60_000);
});
