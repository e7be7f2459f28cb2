// The board's actions in a real Chromium (FOR-13, FOR-14) against the compiled binary, in a field with the fake herdr
// and real git camps: a click on Land lands the mission and the page shows the command's output; a blocked task is
// answered by keyboard alone (Tab into its answer field, type, Enter) and its soldier gets the answer.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import type { Decision } from "../../src/state/schemas";
import { queueFailure, removeAgent, sentKeys, updateState } from "../fakes/herdr-control";
import { git, waitFor } from "../helpers";
import { holdLock, waitedOn } from "../lock-kit";
import { type Field, field, seedTask } from "../e2e/soldier-field";
import { CHROMIUM, pageAt, printedLink } from "./chromium";

// The callbacks handed to page.evaluate run in the page: its globals, loosely typed (the project's types have no DOM).
declare const document: any;
declare function getComputedStyle(e: unknown): any;

const MODAL: Decision = { question: "Which database should the service use?", options: ["Postgres", "SQLite"], asked_at: "2026-11-30T10:00:00.000Z", kind: "modal" };

describe.skipIf(!CHROMIUM)("the board's actions in a browser (FOR-14)", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The board opened from a link `vx forum board` printed, as the general opens it; the page and server gone after. */
  async function onBoard(f: Field, fn: (page: Page) => Promise<void>, width = 1280, colorScheme: "light" | "dark" = "light"): Promise<void> {
    let page: Page | undefined;
    try {
      page = await pageAt(browser, printedLink(await f.run(["forum", "board"])), width, "#attention .card", colorScheme);
      await fn(page);
    } finally {
      await page?.close();
      await f.run(["forum", "stop"]);
    }
  }

  /** A mission whose camp has one commit the base lacks: ready to land. */
  async function missionWithCommit(f: Awaited<ReturnType<typeof field>>) {
    git(f.project, "add", "-A");
    git(f.project, "commit", "-q", "-m", "vexillum scaffold");
    const { task } = await seedTask(f);
    writeFileSync(join(task.camp_path as string, "work.txt"), "done\n");
    git(task.camp_path as string, "add", "work.txt");
    git(task.camp_path as string, "commit", "-q", "-m", "the work");
    return task;
  }

  test("a click on Land lands the mission; the page shows the command's output and the card moves to the rest", async () => {
    await using f = await field();
    const task = await missionWithCommit(f);
    await onBoard(f, async (page) => {
      const land = page.locator(`#attention .card[data-task="${task.id}"] button[data-action="land"]`);
      expect(await land.textContent()).toBe("Land");
      await land.click();
      const entry = page.locator("#action-log li").first();
      await entry.waitFor({ timeout: 30_000 });
      expect(await entry.locator("b").textContent()).toBe(`land ${task.id.slice(0, 8)}: done`);
      expect(await entry.locator("pre").textContent()).toStartWith(`landed: fast-forwarded ${f.project} to vexillum/${task.id}`);
      // The board follows the state the land wrote: the card is in the rest now, as landed.
      await page.locator(`#rest .card[data-task="${task.id}"][data-state="landed"]`).waitFor({ state: "attached", timeout: 10_000 });
      expect(await page.locator(`#attention .card[data-task="${task.id}"]`).count()).toBe(0);
      expect(f.task(task.id).landed_commit).toBe(git(f.project, "rev-parse", "main"));
    });
  });

  test("while the land waits (the task's lock held by a command in a terminal) its button says so and the card's buttons are off", async () => {
    await using f = await field();
    const task = await missionWithCommit(f);
    const lockPath = join(f.paths.tasksDir, `.${task.id}.op.lock`);
    const holder = await holdLock(lockPath);
    try {
      await onBoard(f, async (page) => {
        const land = page.locator(`.card[data-task="${task.id}"] button[data-action="land"]`);
        await land.click();
        await waitFor(() => waitedOn(lockPath), 20_000, `vx land to wait on ${lockPath}`);
        expect(await land.textContent()).toBe("Landing…");
        expect(await land.isDisabled()).toBe(true);
        expect(await page.getAttribute(`.card[data-task="${task.id}"] .actions`, "aria-busy")).toBe("true");
        await holder.release();
        await page.locator("#action-log li").first().waitFor({ timeout: 30_000 });
        expect(await page.locator("#action-log li b").first().textContent()).toBe(`land ${task.id.slice(0, 8)}: done`);
      });
    } finally {
      await holder.release();
    }
  });

  test("a refused land shows the command's refusal on the card and leaves it there", async () => {
    await using f = await field();
    git(f.project, "add", "-A");
    git(f.project, "commit", "-q", "-m", "vexillum scaffold");
    const { task } = await seedTask(f); // done, but no commit: nothing to land
    await onBoard(f, async (page) => {
      await page.locator(`.card[data-task="${task.id}"] button[data-action="land"]`).click();
      const result = page.locator(`.card[data-task="${task.id}"] .result.error`);
      await result.waitFor({ timeout: 30_000 });
      expect(await result.textContent()).toContain(`vx: land refused: nothing to land yet: vexillum/${task.id} has no commit that main lacks`);
      expect(await page.locator(`.card[data-task="${task.id}"] button[data-action="land"]`).isEnabled()).toBe(true);
    });
  });

  test("phone width in the dark: Land, a refused land and an answer by its option button, each with its result, the page within 390 px", async () => {
    await using f = await field();
    const ready = await missionWithCommit(f);
    const empty = (await seedTask(f)).task; // done, but no commit: nothing to land
    const { task: asked, name } = await seedTask(f, { status: "blocked", decision: MODAL, agentStatus: "blocked" });
    updateState(f.fh, (s) => {
      const agent = s.panes.find((p) => p.agent?.name === name)?.agent;
      if (!agent) throw new Error(`no agent ${name}`);
      agent.accept_key = "2";
    });
    await onBoard(
      f,
      async (page) => {
        // The dark set (forum.css's --bg and --card under prefers-color-scheme: dark).
        expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(20, 23, 29)");
        expect(await page.$eval(`.card[data-task="${ready.id}"]`, (c) => getComputedStyle(c).backgroundColor)).toBe("rgb(29, 33, 41)");
        const log = page.locator("#action-log li b");
        await page.locator(`.card[data-task="${empty.id}"] button[data-action="land"]`).click();
        const refused = page.locator(`.card[data-task="${empty.id}"] .result.error`);
        await refused.waitFor({ timeout: 30_000 });
        expect(await refused.textContent()).toContain(`vx: land refused: nothing to land yet: vexillum/${empty.id} has no commit that main lacks`);
        await page.locator(`.card[data-task="${ready.id}"] button[data-action="land"]`).click();
        await page.locator(`#rest .card[data-task="${ready.id}"][data-state="landed"]`).waitFor({ state: "attached", timeout: 30_000 });
        // The card is landed once the state says so; the command still strikes the camp before it answers, and an
        // entry is logged when its command answers. So the land's entry is waited for before the next click.
        await waitFor(async () => (await log.count()) === 2, 30_000, "the land's entry in Your actions");
        await page.locator(`.card[data-task="${asked.id}"] button.option`, { hasText: "SQLite" }).click();
        await waitFor(() => f.task(asked.id).decision?.answer === "SQLite", 30_000, "the answer on the task");
        await waitFor(async () => (await log.count()) === 3, 10_000, "three entries in Your actions");
        expect(await log.allTextContents()).toEqual([`decide ${asked.id.slice(0, 8)}: done`, `land ${ready.id.slice(0, 8)}: done`, `land ${empty.id.slice(0, 8)}: refused`]);
        expect(sentKeys(f.fh, name).map((k) => k.keys)).toEqual([["2"]]);
        expect(await page.evaluate(() => document.scrollingElement?.scrollWidth)).toBeLessThanOrEqual(390);
      },
      390,
      "dark",
    );
  });

  test("Resume relaunches an interrupted soldier; a resume whose relaunch fails, an answer to a soldier that is gone and a blank answer are refused on their cards", async () => {
    await using f = await field();
    const resumed = await seedTask(f, { status: "interrupted", prompt: "resume me" });
    const failing = await seedTask(f, { status: "interrupted", prompt: "resume me too" });
    const gone = await seedTask(f, { status: "blocked", decision: MODAL, agentStatus: "blocked", prompt: "asks, then goes" });
    const waiting = await seedTask(f, { status: "blocked", decision: MODAL, agentStatus: "blocked", prompt: "asks and waits" });
    for (const s of [resumed, failing, gone]) removeAgent(f.fh, s.name);
    await onBoard(f, async (page) => {
      const card = (id: string) => page.locator(`.card[data-task="${id}"]`);
      const log = page.locator("#action-log li b");
      const logged = (n: number) => waitFor(async () => (await log.count()) === n, 30_000, `${n} entries in Your actions`);
      // The relaunch fails (the harness does not start): the command's refusal, the task interrupted again.
      queueFailure(f.fh, "agent start", "agent_start_failed", { message: "agent process exited before becoming interactive" });
      await card(failing.task.id).locator('button[data-action="resume"]').click();
      await logged(1);
      expect(await card(failing.task.id).locator(".result.error").textContent()).toContain("could not start claude in the soldier's pane");
      expect(f.task(failing.task.id)).toMatchObject({ status: "interrupted", resumes: 1 });
      // A resume that works: running again in its own camp.
      await card(resumed.task.id).locator('button[data-action="resume"]').click();
      await logged(2);
      await page.locator(`#running .card[data-task="${resumed.task.id}"]`).waitFor({ timeout: 10_000 });
      expect(f.task(resumed.task.id)).toMatchObject({ status: "running", resumes: 1, camp_path: resumed.task.camp_path });
      // An answer to a soldier whose pane is gone: decide refuses, and the task is interrupted (T8).
      await card(gone.task.id).locator("button.option", { hasText: "SQLite" }).click();
      await logged(3);
      expect(f.task(gone.task.id).status).toBe("interrupted");
      // A blank answer goes nowhere: said on the card, nothing sent.
      await card(waiting.task.id).locator('form.answer button[type="submit"]').click();
      expect(await card(waiting.task.id).locator(".result.error").textContent()).toBe("write an answer first");
      expect(await log.allTextContents()).toEqual([`decide ${gone.task.id.slice(0, 8)}: refused`, `resume ${resumed.task.id.slice(0, 8)}: done`, `resume ${failing.task.id.slice(0, 8)}: refused`]);
      expect(sentKeys(f.fh, waiting.name)).toEqual([]);
      expect(f.task(waiting.task.id).status).toBe("blocked");
    });
  });

  test("keyboard alone: Tab to the blocked task's answer field, type, Enter; the soldier gets the answer", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f, { status: "blocked", decision: MODAL, agentStatus: "blocked" });
    updateState(f.fh, (s) => {
      const agent = s.panes.find((p) => p.agent?.name === name)?.agent;
      if (!agent) throw new Error(`no agent ${name}`);
      agent.accept_key = "2";
    });
    await onBoard(f, async (page) => {
      const options = await page.$$eval(`.card[data-task="${task.id}"] button.option`, (bs) => bs.map((b) => b.textContent));
      expect(options).toEqual(["Postgres", "SQLite"]);
      let label = "";
      for (let i = 0; i < 20 && !label.startsWith("answer to:"); i++) {
        await page.keyboard.press("Tab");
        label = await page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "");
      }
      expect(label).toBe(`answer to: ${MODAL.question} [Postgres / SQLite]`);
      await page.keyboard.type("SQLite");
      await page.keyboard.press("Enter");
      const entry = page.locator("#action-log li").first();
      await entry.waitFor({ timeout: 30_000 });
      expect(await entry.locator("b").textContent()).toBe(`decide ${task.id.slice(0, 8)}: done`);
      expect(await entry.locator("pre").textContent()).toContain(`answered task ${task.id}, now running`);
      expect(sentKeys(f.fh, name).map((k) => k.keys)).toEqual([["2"]]);
      expect(f.task(task.id).decision?.answer).toBe("SQLite");
    });
  });
});
