// The board as the general's dashboard (FOR-09, FOR-13), in a real Chromium against the compiled binary: what
// needs a person first, the counts strip matching the data, prompts clamped to two lines, no sideways
// scroll at phone width, dark mode, and the keyboard walking the cards in order with a visible focus.
// The README's board screenshots are taken here (UPDATE_SCREENSHOTS=1 writes them to docs/img).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import { stopSentinel } from "../await-kit";
import { type Forum, forum } from "../forum-kit";
import { REPO, taskFixture, writeTaskFile } from "../helpers";
import { writeSoldierWake } from "../../src/wakes/queue";
import { projectPaths } from "../../src/state/paths";
import { CHROMIUM, pageAt } from "./chromium";

const IMG = process.env.UPDATE_SCREENSHOTS === "1" ? join(REPO, "docs", "img") : mkdtempSync(join(tmpdir(), "vx-board-shots-"));
afterAll(() => {
  if (IMG !== join(REPO, "docs", "img")) rmSync(IMG, { recursive: true, force: true });
});

// The callbacks handed to page.evaluate run in the page: its globals, loosely typed (the project's types have no DOM).
declare const document: any;
declare function getComputedStyle(e: unknown): any;

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const LONG = `Rewrite the importer so that ${"every record is checked against the schema, its errors collected, and ".repeat(22)}the whole run reported once.`;

// Two camps with their harness's own records (the usage fixtures, stamped now), so the cards show cost as the board reads it.
const PORT_CAMP = "/srv/camps/port";
const IMPORTER_CAMP = "/srv/camps/importer";

function harnessRecords(home: string): void {
  const now = new Date().toISOString();
  const fixture = (name: string, camp: string) =>
    readFileSync(join(REPO, "test", "fixtures", "usage", name), "utf8")
      .replaceAll("/CAMP", camp)
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, now);
  const pi = join(home, ".pi", "agent", "sessions", `--${PORT_CAMP.slice(1).replaceAll("/", "-")}--`);
  mkdirSync(pi, { recursive: true });
  writeFileSync(join(pi, "s.jsonl"), fixture("pi.jsonl", PORT_CAMP));
  const codex = join(home, ".codex", "sessions", ...now.slice(0, 10).split("-"));
  mkdirSync(codex, { recursive: true });
  writeFileSync(join(codex, "rollout-importer.jsonl"), fixture("codex.jsonl", IMPORTER_CAMP));
}

// One of each kind of card, written in an order unlike the board's.
const TASKS = [
  taskFixture({ id: "c5a1e0f22f0e1a5c", prompt: "Add the CSV export", status: "done", harness: "claude", backend: "tmux", camp_branch: "vx/csv", created_at: ago(90), updated_at: ago(5) }),
  taskFixture({ id: "7d3b9a4004a9b3d7", prompt: LONG, status: "running", harness: "codex", backend: "tmux", camp_path: IMPORTER_CAMP, created_at: ago(40), updated_at: ago(1) }),
  taskFixture({ id: "e81c44b77b44c18e", prompt: "Port the tests to bun", status: "running", harness: "claude", backend: "herdr", machine: "gpu-box", created_at: ago(20), updated_at: ago(2) }),
  taskFixture({
    id: "2fa06d1991d60af2",
    prompt: "Fix the flaky login test",
    status: "failed",
    harness: "pi",
    created_at: ago(70),
    updated_at: ago(8),
    output: "Running bun test\nerror: the harness exited 1",
  }),
  taskFixture({ id: "9b7e5c0330c5e7b9", prompt: "Old work", status: "done", landed_commit: "abcdef0123456789abcdef0123456789abcdef01", landed_at: ago(30), created_at: ago(300), updated_at: ago(30) }),
  taskFixture({
    id: "41d8f2aeea2f8d14",
    kind: "scout",
    prompt: "Which port should the forum prefer?",
    status: "blocked",
    harness: "pi",
    camp_path: PORT_CAMP,
    created_at: ago(10),
    updated_at: ago(3),
    decision: { question: "Keep the last port or pick a new one?", options: ["keep", "new"], asked_at: ago(3) },
  }),
  taskFixture({ id: "b06c3e5885e3c60b", prompt: "Tidy the README", status: "interrupted", harness: "codex", created_at: ago(50), updated_at: ago(6) }),
  taskFixture({ id: "58e2a7d11d7a2e85", prompt: "Queue up the docs pass", status: "pending", created_at: ago(1), updated_at: ago(1) }),
];

describe.skipIf(!CHROMIUM)("the board as the general's dashboard (FOR-09, FOR-13)", () => {
  let browser: Browser;
  let f: Forum;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    f = await forum();
    for (const t of TASKS) writeTaskFile(f.home, f.project, t);
    harnessRecords(f.home);
    const paths = projectPaths(f.root, f.project);
    const wake = (task_id: string, new_status: "failed" | "done", note?: string) => ({
      task_id,
      kind: "mission" as const,
      old_status: "running" as const,
      new_status,
      detected_at: ago(4),
      ...(note ? { note } : {}),
    });
    writeSoldierWake(f.root, paths.wakesDir, wake("2fa06d1991d60af2", "failed", "the harness exited 1 after 3 tries"));
    writeSoldierWake(f.root, paths.wakesDir, wake("7d3b9a4004a9b3d7", "done")); // running again: no longer true
    await f.open(["board"]); // starts the server
    await stopSentinel(f.root); // nothing here has a pane the sentinel could find
    // A short conversation in the project's box (FOR-09), answered, so its message is no longer a true wake.
    expect((await f.post("/api/projects/messages", { project_path: f.project, text: "Land the CSV export first, then the importer." })).status).toBe(201);
    expect((await f.run(["reply", "board", "Will do: the CSV export is ready; the importer is still running."])).code).toBe(0);
  });
  afterAll(async () => {
    await browser?.close();
    if (f) {
      await f.stop();
      await stopSentinel(f.root);
      f[Symbol.dispose]();
    }
  });

  async function open(width: number, colorScheme: "light" | "dark" = "light"): Promise<Page> {
    // A fresh one-time link per page: a code is spent by its first login.
    return pageAt(browser, (await f.open(["board"])).toString(), width, "#attention .card", colorScheme);
  }

  test("desktop: needs-you first (blocked with its question, failed with why, ready to land with its hint), true counts, running last", async () => {
    const page = await open(1280);
    const sections = await page.$$eval("main > section", (s) => s.map((x) => x.id));
    expect(sections).toEqual(["attention", "running", "rest", "project-list"]);
    const attention = await page.$$eval("#attention .card", (cs) => cs.map((c) => [(c as any).dataset.task, c.querySelector(".say")?.textContent]));
    expect(attention).toEqual([
      ["41d8f2aeea2f8d14", "asks: Keep the last port or pick a new one? [keep / new]"],
      ["2fa06d1991d60af2", "failed: the harness exited 1 after 3 tries"],
      ["b06c3e5885e3c60b", "interrupted: no output recorded"],
      ["c5a1e0f22f0e1a5c", "ready to land: vx land c5a1e0f22f0e1a5c"],
    ]);
    // The strip sits between the needs-you section and the running work, its numbers the data's.
    const counts = await page.$$eval(".counts li", (ls) => Object.fromEntries(ls.map((l) => [(l as any).dataset.count, l.querySelector("b")?.textContent])));
    expect(counts).toEqual({ running: "3", blocked: "1", ready: "1", landed: "1", failed: "2", wakes: "1" });
    expect(await page.$eval(".counts", (c) => c.previousElementSibling?.id)).toBe("attention");
    const running = await page.$$eval("#running .card", (cs) => cs.map((c) => (c as any).dataset.task));
    expect(running).toEqual(["7d3b9a4004a9b3d7", "e81c44b77b44c18e", "58e2a7d11d7a2e85"]);
    const onMachine = await page.textContent('.card[data-task="e81c44b77b44c18e"] .top');
    expect(onMachine).toContain("claude / herdr");
    expect(onMachine).toContain("on machine gpu-box");
    expect(onMachine).toMatch(/2\dm old/);
    // Cost from the harness's own records; a soldier on another machine offers no screen (FOR-15), one here does.
    expect(await page.textContent('.card[data-task="41d8f2aeea2f8d14"] .cost')).toMatch(/^cost: .* in, .* out.*\$/);
    expect(await page.textContent('.card[data-task="7d3b9a4004a9b3d7"] .cost')).toMatch(/^cost: .* in, .* out/);
    expect(await page.locator('.card[data-task="e81c44b77b44c18e"] .screen-toggle').count()).toBe(0);
    expect(await page.locator('.card[data-task="7d3b9a4004a9b3d7"] .screen-toggle').count()).toBe(1);
    expect(await page.isVisible('.card[data-task="9b7e5c0330c5e7b9"]')).toBe(false); // the rest is folded away
    // A 2,000-character prompt takes two lines, not the screen.
    const clamp = await page.$eval('.card[data-task="7d3b9a4004a9b3d7"] .prompt', (p) => ({
      h: p.getBoundingClientRect().height,
      line: Number.parseFloat(getComputedStyle(p).lineHeight),
      len: p.textContent?.length,
    }));
    expect(clamp.len).toBe(LONG.length);
    expect(clamp.h).toBeGreaterThan(1.5 * clamp.line);
    expect(clamp.h).toBeLessThan(2.5 * clamp.line);
    mkdirSync(IMG, { recursive: true });
    await page.screenshot({ path: join(IMG, "forum-board.png"), fullPage: true });
    await page.close();
  });

  test("phone: one column of cards, never wider than the 390-px screen", async () => {
    const page = await open(390);
    expect(await page.evaluate(() => document.scrollingElement?.scrollWidth)).toBeLessThanOrEqual(390);
    const lefts = await page.$$eval("#attention .card", (cs) => cs.map((c) => Math.round(c.getBoundingClientRect().left)));
    expect(new Set(lefts).size).toBe(1);
    await page.screenshot({ path: join(IMG, "forum-board-phone.png"), fullPage: true });
    await page.close();
  });

  test("dark mode follows prefers-color-scheme", async () => {
    const page = await open(1280);
    const bg = () => page.evaluate(() => [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.querySelector(".card")).color]);
    const [lightBg, lightInk] = await bg();
    await page.emulateMedia({ colorScheme: "dark" });
    const [darkBg, darkInk] = await bg();
    expect(lightBg).toBe("rgb(246, 247, 249)");
    expect(darkBg).toBe("rgb(20, 23, 29)");
    expect(darkInk).not.toBe(lightInk);
    await page.close();
    const dark = await open(1280, "dark");
    await dark.screenshot({ path: join(IMG, "forum-board-dark.png") });
    await dark.close();
  });

  test("keyboard alone: Tab walks the cards in the board's order, each with a visible focus ring", async () => {
    const page = await open(1280);
    const order = await page.$$eval(".card", (cs) => cs.filter((c) => c.checkVisibility()).map((c) => (c as any).dataset.task));
    const reached: string[] = [];
    for (let i = 0; i < 40 && reached.length < order.length; i++) {
      await page.keyboard.press("Tab");
      const focus = await page.evaluate(() => {
        const a = document.activeElement;
        const s = getComputedStyle(a);
        return { task: a.classList.contains("card") ? a.dataset.task : undefined, outline: s.outlineStyle, width: Number.parseFloat(s.outlineWidth) };
      });
      if (!focus.task) continue; // a summary or the live badge's neighbours
      expect(focus.outline).toBe("solid");
      expect(focus.width).toBeGreaterThanOrEqual(2);
      reached.push(focus.task);
    }
    expect(reached).toEqual(order as string[]);
    expect(order.length).toBe(7);
    await page.close();
  });
});
