// A failed card's Redispatch in a real Chromium (FOR-13, FOR-14, CMD-REDISPATCH-01) against the compiled binary, on a
// real tmux server and real git camps: the task failed for real (its harness exited before it was ready); once the
// harness works, a click re-runs it under the same id and the card moves to the running work, at desktop and at
// phone width; a redispatch the command refuses (its harness is not installed) shows the refusal on the card.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import { readPool } from "../../src/camps/pool";
import { type Field, seedTask, taskIdOf } from "../e2e/soldier-field";
import { HARNESS, tmuxField } from "../e2e/tmux-field";
import { CHROMIUM, pageAt, printedLink } from "./chromium";

// The callbacks handed to page.evaluate run in the page: its globals, loosely typed (the project's types have no DOM).
declare const document: any;

// The stand-in harness, broken while $HOME/broken exists: it says why and exits, as a harness not logged in does.
const GATED = HARNESS.replace("#!/bin/sh\n", `#!/bin/sh\nif [ -e "$HOME/broken" ]; then echo 'Error: not logged in'; ${Bun.which("sleep")} 0.5; exit 3; fi\n`);

// The screenshots, to look at: kept in SHOTS_DIR when it is set, else thrown away.
const SHOTS = process.env.SHOTS_DIR ?? mkdtempSync(join(tmpdir(), "vx-redispatch-shots-"));
afterAll(() => {
  if (!process.env.SHOTS_DIR) rmSync(SHOTS, { recursive: true, force: true });
});

describe.skipIf(!CHROMIUM)("a failed card's Redispatch in a browser (FOR-13, FOR-14)", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A tmux field whose dispatches fail at T4 until $HOME/broken goes. */
  async function brokenField() {
    const f = await tmuxField(GATED);
    writeFileSync(join(f.home, "broken"), "");
    // A 3 s readiness wait: the harness is seen to exit.
    f.env.VX_TIME_SCALE = "0.1";
    return f;
  }

  async function failedDispatch(f: Field, prompt: string): Promise<string> {
    const r = await f.run(["dispatch", prompt, "--backend", "tmux"]);
    expect(r.code).toBe(1);
    const id = taskIdOf(r.stdout);
    expect(f.task(id).status).toBe("failed");
    return id;
  }

  /** The board at `width`, opened from a link `vx forum board` printed; the page closed after. */
  async function onBoard(f: Field, width: number, fn: (page: Page) => Promise<void>): Promise<void> {
    const page = await pageAt(browser, printedLink(await f.run(["forum", "board"])), width, "#attention .card");
    try {
      await fn(page);
    } finally {
      await page.close();
    }
  }

  test("desktop and phone: a click on Redispatch re-runs the failed task under its id; the result shows and the card moves to running", async () => {
    await using f = await brokenField();
    const wide = await failedDispatch(f, "fix the login bug");
    const narrow = await failedDispatch(f, "tidy the readme");
    rmSync(join(f.home, "broken"));
    try {
      for (const [id, width] of [
        [wide, 1280],
        [narrow, 390],
      ] as const) {
        await onBoard(f, width, async (page) => {
          const card = page.locator(`#attention .card[data-task="${id}"]`);
          expect(await card.locator(".say").textContent()).toContain("failed: ");
          // Redispatch alone: a failed soldier has no session to resume.
          const buttons = await card.locator(".actions button").allTextContents();
          expect(buttons).toEqual(["Redispatch"]);
          await page.screenshot({ path: join(SHOTS, `failed-card-${width}.png`), fullPage: true });
          await card.locator('button[data-action="redispatch"]').click();
          const entry = page.locator("#action-log li").first();
          await entry.waitFor({ timeout: 60_000 });
          expect(await entry.locator("b").textContent()).toBe(`redispatch ${id.slice(0, 8)}: done`);
          const out = (await entry.locator("pre").textContent()) ?? "";
          expect(out).toStartWith(`task_id=${id} kind=mission camp_slot=`);
          expect(out).toContain("\nstatus=running\n");
          await page.locator(`#running .card[data-task="${id}"]`).waitFor({ timeout: 10_000 });
          expect(await page.locator(`#attention .card[data-task="${id}"]`).count()).toBe(0);
          expect(await page.evaluate(() => document.scrollingElement?.scrollWidth)).toBeLessThanOrEqual(width);
          await page.screenshot({ path: join(SHOTS, `redispatched-${width}.png`), fullPage: true });
        });
        expect(f.task(id)).toMatchObject({ id, status: "running", redispatches: 1 });
      }
      expect(
        readPool(f.paths)
          .slots.map((s) => s.leased_by)
          .sort(),
      ).toEqual([wide, narrow].sort());
    } finally {
      await f.run(["forum", "stop"]);
    }
  });

  test("a refused redispatch (the task's harness is no longer installed) is shown on the card, the task unchanged", async () => {
    await using f = await brokenField();
    const { task } = await seedTask(f, { status: "failed", harness: "codex", output: "[vexillum] could not start codex - marked failed." });
    rmSync(join(f.bin, "codex"));
    try {
      for (const width of [1280, 390]) {
        await onBoard(f, width, async (page) => {
          const card = page.locator(`#attention .card[data-task="${task.id}"]`);
          await card.locator('button[data-action="redispatch"]').click();
          const result = card.locator(".result.error");
          await result.waitFor({ timeout: 30_000 });
          expect(await result.textContent()).toBe(
            "vx: codex not found in PATH, needed to run Codex soldiers - install Codex (or put codex on PATH), or redispatch with --profile <name> naming a profile of another harness (vx models lists them)",
          );
          expect(await page.locator("#action-log li b").first().textContent()).toBe(`redispatch ${task.id.slice(0, 8)}: refused`);
          expect(await card.locator('button[data-action="redispatch"]').isEnabled()).toBe(true);
          expect(await page.evaluate(() => document.scrollingElement?.scrollWidth)).toBeLessThanOrEqual(width);
          await page.screenshot({ path: join(SHOTS, `refused-${width}.png`), fullPage: true });
        });
      }
      expect(f.task(task.id)).toEqual(task);
    } finally {
      await f.run(["forum", "stop"]);
    }
  });
});
