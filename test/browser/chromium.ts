// The browser the forum's browser tests drive (FOR-11): CHROMIUM_PATH names it, else Debian's
// `chromium` on PATH; undefined (and the tests skipped, saying so) when there is none.
import { existsSync } from "node:fs";
import type { Browser, Page } from "playwright-core";

function findChromium(): string | undefined {
  const given = process.env.CHROMIUM_PATH;
  if (given) return existsSync(given) ? given : undefined;
  return Bun.which("chromium") ?? Bun.which("chromium-browser") ?? undefined;
}

export const CHROMIUM = findChromium();
if (!CHROMIUM) console.error("test/browser: no chromium found (install Debian's chromium package, or set CHROMIUM_PATH): the browser tests are skipped");

/** The link a `vx forum board` run printed (its `forum: <url>` line); a run without one fails the test with its stderr. */
export function printedLink(r: { stdout: string; stderr: string }): string {
  const url = /^forum: (\S+)$/m.exec(r.stdout)?.[1];
  if (!url) throw new Error(`no link from vx forum board: ${r.stderr}`);
  return url;
}

/** A new page `width` px wide (900 high) in `colorScheme`, at `url`, once `ready` (a selector) shows; closed on a failure. */
export async function pageAt(browser: Browser, url: string, width: number, ready: string, colorScheme: "light" | "dark" = "light"): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme });
  try {
    await page.goto(url);
    await page.locator(ready).first().waitFor({ timeout: 10_000 });
    return page;
  } catch (err) {
    await page.close();
    throw err;
  }
}
