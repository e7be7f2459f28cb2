// Issue 15 item 6: the held-out style set (test/fixtures/secret-heldout.ts) was written before the
// rules were widened and never tuned on; it stays clean as the rules change. Set B came later (see
// the fixture for what it first found). Set C (issue 25) was written before issue 25's rules changed.
import { describe, expect, test } from "bun:test";
import { redact } from "../../src/redact";
import { HELD_OUT, HELD_OUT_B, HELD_OUT_NEAR } from "../fixtures/secret-heldout";
import { HELD_OUT_C, HELD_OUT_C_NEAR } from "../fixtures/secret-heldout-c";

describe("the held-out style set", () => {
  test("covers the families the held-out corpus leaked in", () => {
    const families = new Set(HELD_OUT.map((c) => c.family));
    for (const f of ["1password", "alibaba", "cmdline", "dropbox", "env-assignment", "firebase", "heroku", "nuget", "pinecone", "render", "rubygems", "supabase"]) {
      expect(families.has(f)).toBe(true);
    }
  });

  test.each(HELD_OUT)("caught: $family: $text", ({ text, secrets }) => {
    const out = redact(text);
    expect(secrets.filter((s) => out.includes(s))).toEqual([]);
    expect(redact(out)).toBe(out);
  });

  test.each(HELD_OUT_B)("set B, caught: $family: $text", ({ text, secrets }) => {
    const out = redact(text);
    expect(secrets.filter((s) => out.includes(s))).toEqual([]);
  });

  test.each(HELD_OUT_NEAR)("survives: $family: $text", ({ text }) => {
    expect(redact(text)).toBe(text);
  });

  test("set C covers issue 25's families, each with a look-alike", () => {
    const families = [...new Set(HELD_OUT_C.map((c) => c.family))].sort();
    expect(families).toEqual(["1password", "assignment", "cookie", "format-char", "json-escaped", "password-key"]);
    expect([...new Set(HELD_OUT_C_NEAR.map((c) => c.family))].sort()).toEqual(families);
    for (const c of HELD_OUT_C) expect(c.secrets.length).toBeGreaterThan(0);
  });

  test.each(HELD_OUT_C)("set C, caught: $family: $text", ({ text, secrets }) => {
    const out = redact(text);
    expect(secrets.filter((s) => out.includes(s))).toEqual([]);
    expect(redact(out)).toBe(out);
  });

  test.each(HELD_OUT_C_NEAR)("set C, survives: $family: $text", ({ text }) => {
    expect(redact(text)).toBe(text);
  });
});
