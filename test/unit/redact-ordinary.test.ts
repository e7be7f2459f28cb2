// Issue 9 item 3: over at least 5,000 lines of ordinary source code and logs, at most 3 lines in
// 1,000 change. The figure itself is printed by `bun bench/redact.ts`.
import { describe, expect, test } from "bun:test";
import { redact } from "../../src/redact";
import { ORDINARY_LINES } from "../fixtures/ordinary/index";

describe("ordinary text", () => {
  test("the corpus has at least 5,000 lines", () => {
    expect(ORDINARY_LINES.length).toBeGreaterThanOrEqual(5000);
  });

  test("at most 3 lines in 1,000 change", () => {
    const changed = ORDINARY_LINES.filter((l) => redact(l) !== l);
    expect(changed.length * 1000).toBeLessThanOrEqual(3 * ORDINARY_LINES.length);
  });

  test("as one capture it changes no more lines than line by line, and a second pass changes nothing", () => {
    const text = ORDINARY_LINES.join("\n");
    const once = redact(text);
    const lines = once.split("\n");
    expect(lines).toHaveLength(ORDINARY_LINES.length);
    expect(lines.filter((l, i) => l !== ORDINARY_LINES[i]).length).toBe(ORDINARY_LINES.filter((l) => redact(l) !== l).length);
    expect(redact(once)).toBe(once);
  });
});
