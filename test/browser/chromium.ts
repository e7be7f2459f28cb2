// The browser the forum's browser tests drive (FOR-11): CHROMIUM_PATH names it, else Debian's
// `chromium` on PATH; undefined (and the tests skipped, saying so) when there is none.
import { existsSync } from "node:fs";

function findChromium(): string | undefined {
  const given = process.env.CHROMIUM_PATH;
  if (given) return existsSync(given) ? given : undefined;
  return Bun.which("chromium") ?? Bun.which("chromium-browser") ?? undefined;
}

export const CHROMIUM = findChromium();
if (!CHROMIUM) console.error("test/browser: no chromium found (install Debian's chromium package, or set CHROMIUM_PATH): the browser tests are skipped");
