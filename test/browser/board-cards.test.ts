// The board's cards in a real Chromium against the compiled binary (FOR-13, FOR-14, FOR-15), at desktop and phone
// width and in dark mode: a card's cost as its harness recorded it (and the reason where none is), a running tmux
// soldier's screen opened on its card with new pane text appearing and a secret never shown, and a scout's
// "Review report" landing on the review page that shows the report.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import { usageLine } from "../../src/cost";
import { reportPath } from "../../src/lifecycle/observe";
import type { Task } from "../../src/state/schemas";
import { createTask, listTasks } from "../../src/state/tasks";
import { REPO, taskFixture } from "../helpers";
import { taskIdOf } from "../e2e/soldier-field";
import { tmuxField } from "../e2e/tmux-field";
import { CHROMIUM, pageAt, printedLink } from "./chromium";

const IMG = process.env.UPDATE_SCREENSHOTS === "1" ? join(REPO, "docs", "img") : mkdtempSync(join(tmpdir(), "vx-cards-shots-"));
afterAll(() => {
  if (IMG !== join(REPO, "docs", "img")) rmSync(IMG, { recursive: true, force: true });
});

// The callbacks handed to page.evaluate run in the page: its globals, loosely typed (the project's types have no DOM).
declare const document: any;
declare function getComputedStyle(e: unknown): any;

const TOKEN = `ghp_${"Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5"}`; // fake, the shape only
const PANE = "=vx-fix-the-login-bug:";

describe.skipIf(!CHROMIUM)("the board's cards in a browser (FOR-13, FOR-14, FOR-15)", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A running tmux soldier whose camp has a Claude Code record, a task with no camp, and a scout whose report exists. */
  async function troop(f: Awaited<ReturnType<typeof tmuxField>>) {
    const r = await f.run(["dispatch", "fix the login bug", "--backend", "tmux"]);
    if (r.code !== 0) throw new Error(`dispatch: ${r.stderr}`);
    const id = taskIdOf(r.stdout);
    const camp = listTasks(f.paths).find((t) => t.value.id === id)!.value.camp_path as string;
    const dir = join(f.home, ".claude", "projects", camp.replace(/[^a-zA-Z0-9]/g, "-"));
    mkdirSync(dir, { recursive: true });
    const fixture = readFileSync(join(REPO, "test", "fixtures", "usage", "claude.jsonl"), "utf8").replaceAll("/CAMP", camp);
    writeFileSync(join(dir, "s.jsonl"), fixture.replace(/"timestamp":"[^"]+"/g, `"timestamp":"${new Date().toISOString()}"`));
    await createTask(f.paths, taskFixture({ id: "1234123412341234", prompt: "An old task with no camp", harness: "claude", status: "done" }) as Task);
    const scout = taskFixture({ id: "5a5a5a5a5a5a5a5a", kind: "scout", prompt: "Where does the login bug live?", status: "done", harness: "claude", backend: "tmux", tmux_target: "vx-where" }) as Task;
    await createTask(f.paths, scout);
    mkdirSync(f.paths.reportsDir, { recursive: true });
    writeFileSync(reportPath(f.paths, scout), "# Findings\n\nThe login bug lives in **session.ts**.\n");
    const usage = JSON.parse((await f.run(["status", "--json"])).stdout).usage;
    return { id, scout, usage };
  }

  async function board(f: Awaited<ReturnType<typeof tmuxField>>, width: number, colorScheme: "light" | "dark" = "light"): Promise<Page> {
    return pageAt(browser, printedLink(await f.run(["forum", "board"])), width, "#running .card", colorScheme);
  }

  test("desktop: the cost on each card, the screen opened with new pane text appearing (redacted), closed again; Review report opens the report", async () => {
    await using f = await tmuxField();
    const { id, scout, usage } = await troop(f);
    const page = await board(f, 1280);
    try {
      const card = page.locator(`.card[data-task="${id}"]`);
      // TSK-15's line, as vx status prints it.
      expect(await card.locator(".cost").textContent()).toBe(usageLine(usage[id])!.trim());
      expect(await page.locator('.card[data-task="1234123412341234"] .cost').textContent()).toBe("cost unknown: no camp recorded for this task");
      expect(await page.locator(".project .meta").textContent()).toContain(" · cost: ");
      expect(await page.locator(".project .meta").textContent()).toContain("(1 task, 2 unknown)");

      const toggle = card.locator("button.screen-toggle");
      expect(await toggle.textContent()).toBe("Show screen");
      const screens: string[] = [];
      page.on("request", (req) => {
        if (req.url().includes("/api/tasks/screen")) screens.push(req.url());
      });
      await toggle.click();
      expect(await toggle.getAttribute("aria-expanded")).toBe("true");
      const pre = card.locator("pre.screen-text");
      await pre.locator("xpath=self::*[contains(., 'fix the login bug')]").waitFor({ timeout: 20_000 });
      f.tmux("send-keys", "-t", PANE, "-l", `export GITHUB_TOKEN=${TOKEN}`);
      f.tmux("send-keys", "-t", PANE, "Enter");
      f.tmux("send-keys", "-t", PANE, "-l", "new pane text 42");
      f.tmux("send-keys", "-t", PANE, "Enter");
      await pre.locator("xpath=self::*[contains(., 'new pane text 42')]").waitFor({ timeout: 20_000 });
      const shown = (await pre.textContent()) as string;
      expect(shown).toContain("export GITHUB_TOKEN=[redacted");
      expect(shown).not.toContain(TOKEN);
      mkdirSync(IMG, { recursive: true });
      await page.screenshot({ path: join(IMG, "forum-board-screen.png"), fullPage: true });

      // Closed: hidden, and no more asking (well past a few of its 2 s, scaled, polls).
      await toggle.click();
      expect(await toggle.textContent()).toBe("Show screen");
      expect(await card.locator(".screen").isHidden()).toBe(true);
      // An absence has no event to wait on: a window of more than ten polls (40 ms each at the field's time scale).
      const asked = screens.length;
      await page.waitForTimeout(500);
      expect(screens.length - asked).toBeLessThanOrEqual(1); // at most one already on its way when closed

      // Review report (a finished scout's card is in the rest, folded): the review page of the report.
      await page.locator("#rest summary").click();
      await page.locator(`.card[data-task="${scout.id}"] button.review`).click();
      await page.waitForURL(/\/s\/[^/]+$/, { timeout: 10_000 });
      const frame = page.frameLocator("#artifact");
      await frame.locator("strong", { hasText: "session.ts" }).waitFor({ timeout: 10_000 });
      expect(await page.locator("#file").textContent()).toBe(reportPath(f.paths, scout));
    } finally {
      await page.close();
      await f.run(["forum", "stop"]);
    }
  });

  test("phone and dark mode: the open screen keeps the page within 390 px; its colours follow the dark set", async () => {
    await using f = await tmuxField();
    const { id } = await troop(f);
    const page = await board(f, 390, "dark");
    try {
      const card = page.locator(`.card[data-task="${id}"]`);
      await card.locator("button.screen-toggle").click();
      await card.locator("pre.screen-text").locator("xpath=self::*[contains(., 'fix the login bug')]").waitFor({ timeout: 20_000 });
      // A wide pane line scrolls inside its box, never the page.
      f.tmux("send-keys", "-t", PANE, "-l", "w".repeat(200));
      f.tmux("send-keys", "-t", PANE, "Enter");
      await card.locator("pre.screen-text").locator("xpath=self::*[contains(., 'wwwwwwwwww')]").waitFor({ timeout: 20_000 });
      expect(await page.evaluate(() => document.scrollingElement?.scrollWidth)).toBeLessThanOrEqual(390);
      const colours = await page.evaluate((task: string) => {
        const pre = getComputedStyle(document.querySelector("pre.screen-text"));
        const cost = getComputedStyle(document.querySelector(`.card[data-task="${task}"] .cost`));
        return [pre.backgroundColor, pre.color, cost.color];
      }, id);
      // --code-bg, --ink of the dark set.
      expect(colours.slice(0, 2)).toEqual(["rgb(38, 43, 53)", "rgb(230, 233, 239)"]);
      expect(colours[2]).toBe("rgb(230, 233, 239)");
      await page.screenshot({ path: join(IMG, "forum-board-screen-phone-dark.png"), fullPage: true });
    } finally {
      await page.close();
      await f.run(["forum", "stop"]);
    }
  });
});
