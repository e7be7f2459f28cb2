// The real-herdr kit itself: a private server answers, reports the real version and protocol,
// gives a pane's program the commander variables, and leaves nothing running when stopped.
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REAL_HERDR_PROTOCOL, REAL_HERDR_VERSION, startRealHerdr } from "../herdr-real";

test("a private real herdr server starts, runs a pane program and stops", async () => {
  const h = await startRealHerdr();
  try {
    const status = JSON.parse(h.run(["status", "server", "--json"]).stdout);
    expect(status.version).toBe(REAL_HERDR_VERSION);
    expect(status.protocol).toBe(REAL_HERDR_PROTOCOL);
    const dir = mkdtempSync(join(tmpdir(), "vx-herdr-kit-"));
    const ws = h.workspace(dir);
    const out = join(dir, "env.txt");
    expect(h.run(["pane", "run", ws.pane, `env > ${out}`]).code).toBe(0);
    const end = Date.now() + 20_000;
    while (!(existsSync(out) && readFileSync(out, "utf8").includes("HERDR_PANE_ID")) && Date.now() < end) await Bun.sleep(25);
    const env = readFileSync(out, "utf8");
    for (const [k, v] of Object.entries(h.paneEnv(ws))) expect(env).toContain(`${k}=${v}`);
  } finally {
    await h.stop();
  }
  expect(existsSync(h.home)).toBe(false);
});
