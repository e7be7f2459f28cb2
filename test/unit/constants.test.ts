/**
 * One source per constant: the durations and counts of src/time.ts are read where they apply (a
 * template or hook that hard-codes its own copy fails here), and every `schema_version` vx writes
 * is SCHEMA_VERSION.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { hookEntry } from "../../src/scaffold/hook";
import { OPENCODE_PLUGIN } from "../../src/harnesses/opencode-plugin";
import { PI_EXTENSION } from "../../src/harnesses/pi-extension";
import { opencodePlugin, piExtension } from "../../src/harnesses/state-hook-templates";
import { COUNTS, DURATIONS, GUARDS } from "../../src/time";

const SRC = join(import.meta.dir, "../../src");

async function sources(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const rel of new Bun.Glob("**/*.ts").scan(SRC)) out.set(rel, await Bun.file(join(SRC, rel)).text());
  return out;
}

describe("one source per constant", () => {
  test("every entry of the time table is read somewhere in src/ besides time.ts", async () => {
    const files = await sources();
    files.delete("time.ts");
    const all = [...files.values()].join("\n");
    const names = [...Object.keys(DURATIONS), ...Object.keys(GUARDS), ...Object.keys(COUNTS)];
    const unread = names.filter((n) => !new RegExp(`\\b${n}\\b`).test(all));
    expect(unread).toEqual([]);
  });

  test("the wake and state-hook templates render their timings from the time table", async () => {
    const files = await sources();
    const programs = ["pi-wake", "opencode-wake", "wake-helpers", "pi-state", "opencode-state", "state-reporter"].map((p) => `harnesses/programs/${p}.ts`);
    for (const rel of ["harnesses/pi-extension.ts", "harnesses/opencode-plugin.ts", "harnesses/wake-common.ts", "harnesses/state-hook-templates.ts", ...programs]) {
      const text = files.get(rel);
      // A moved file must move here too: a missing one would pass unread.
      expect({ rel, found: text !== undefined }).toEqual({ rel, found: true });
      // A number of milliseconds typed into template text is a copy that can drift from time.ts.
      expect({ rel, literal: text?.match(/\bscaled\(\d|\}, \d[\d_]*\);|\b\d+_000\b/)?.[0] }).toEqual({ rel, literal: undefined });
    }
    for (const text of [PI_EXTENSION, OPENCODE_PLUGIN]) {
      expect(text).toContain(`const retryMs = scaled(${DURATIONS.wakeRetry});`);
      expect(text).toContain(`const giveUpMs = scaled(${DURATIONS.wakeRelisten});`);
    }
    for (const text of [piExtension("/x/vx"), opencodePlugin("/x/vx")]) expect(text).toContain(`}, ${GUARDS.reportChild});`);
  });

  test("the Stop hook's timeout is the time table's, not a copy", async () => {
    expect(hookEntry().timeout).toBe(COUNTS.hookTimeoutSeconds);
    expect((await sources()).get("scaffold/hook.ts")).not.toMatch(/timeout:\s*\d/);
  });

  test("no src/ file writes a schema_version other than SCHEMA_VERSION", async () => {
    const literal: string[] = [];
    for (const [rel, text] of await sources()) {
      text.split("\n").forEach((line, i) => {
        if (/\bschema_version:\s*\d/.test(line)) literal.push(`src/${rel}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(literal).toEqual([]);
  });
});
