// Issue 9: every secret family is caught (a positive case) and its look-alike survives (a near miss),
// alone, inside one long transcript, with CRLF line ends, and at the top of a 500-line window.
import { describe, expect, test } from "bun:test";
import { PRIVATE_KEY_BLOCK, redact } from "../../src/redact";
import { ORDINARY_LINES } from "../fixtures/ordinary/index";
import { NEAR_MISS_BLOCKS, NEAR_MISSES, SECRET_BLOCKS, SECRET_CASES } from "../fixtures/secret-corpus";

const leaked = (out: string, secrets: string[]) => secrets.filter((s) => out.includes(s));

describe("the secret corpus", () => {
  test("has at least 100 secret lines over at least 40 families, each secret 8+ characters", () => {
    expect(SECRET_CASES.length).toBeGreaterThanOrEqual(100);
    expect(new Set(SECRET_CASES.map((c) => c.family)).size).toBeGreaterThanOrEqual(40);
    for (const c of [...SECRET_CASES, ...SECRET_BLOCKS]) {
      expect(c.secrets.length).toBeGreaterThan(0);
      for (const s of c.secrets) expect(s.length).toBeGreaterThanOrEqual(8);
    }
  });

  test("every family has a near miss", () => {
    const near = new Set([...NEAR_MISSES, ...NEAR_MISS_BLOCKS].map((n) => n.family));
    const missing = [...new Set([...SECRET_CASES, ...SECRET_BLOCKS].map((c) => c.family))].filter((f) => !near.has(f));
    expect(missing).toEqual([]);
  });

  test.each(SECRET_CASES)("caught: $family: $line", ({ line, secrets }) => {
    const out = redact(line);
    expect(leaked(out, secrets)).toEqual([]);
    expect(redact(out)).toBe(out);
  });

  test.each(SECRET_BLOCKS)("caught over lines: $family", ({ text, secrets }) => {
    const out = redact(text);
    expect(leaked(out, secrets)).toEqual([]);
    expect(redact(out)).toBe(out);
  });

  test.each(NEAR_MISSES)("survives: $family: $line", ({ line }) => {
    expect(redact(line)).toBe(line);
  });

  test.each(NEAR_MISS_BLOCKS)("survives over lines: $family", ({ text }) => {
    expect(redact(text)).toBe(text);
  });
});

describe("the corpus as one capture", () => {
  const lines = [...SECRET_CASES.map((c) => c.line), ...NEAR_MISSES.map((n) => n.line)];
  const secrets = SECRET_CASES.flatMap((c) => c.secrets);

  test("no secret survives, no near miss changes, no line is lost, and a second pass changes nothing", () => {
    const out = redact(lines.join("\n"));
    expect(leaked(out, secrets)).toEqual([]);
    const outLines = out.split("\n");
    expect(outLines).toHaveLength(lines.length);
    expect(outLines.slice(SECRET_CASES.length)).toEqual(NEAR_MISSES.map((n) => n.line));
    expect(redact(out)).toBe(out);
  });

  test("with CRLF line ends every line keeps its CR", () => {
    const out = redact(lines.map((l) => `${l}\r`).join("\n"));
    expect(leaked(out, secrets)).toEqual([]);
    for (const l of out.split("\n")) expect(l.endsWith("\r")).toBe(true);
    expect(redact(out)).toBe(out);
  });

  test("line by line or all at once, the result is the same", () => {
    expect(redact(lines.join("\n"))).toBe(lines.map(redact).join("\n"));
  });

  test("every block in one transcript, separated by ordinary lines", () => {
    const text = SECRET_BLOCKS.map((b) => b.text).join("\n$ echo next\n");
    const out = redact(text);
    expect(
      leaked(
        out,
        SECRET_BLOCKS.flatMap((b) => b.secrets),
      ),
    ).toEqual([]);
    expect(out.split("\n").filter((l) => l === "$ echo next")).toHaveLength(SECRET_BLOCKS.length - 1);
    expect(redact(out)).toBe(out);
  });
});

describe("a key printed just above the 500-line window", () => {
  const body = SECRET_BLOCKS.find((b) => b.family === "pem-keyless-body");
  if (body === undefined) throw new Error("corpus lost its pem-keyless-body case");

  test("its body and END line at the top of the window collapse, the rest of the window stays", () => {
    const rest = ORDINARY_LINES.slice(0, 500 - body.text.split("\n").length);
    const out = redact([body.text, ...rest].join("\n"));
    expect(leaked(out, body.secrets)).toEqual([]);
    expect(out.split("\n")[0]).toBe(PRIVATE_KEY_BLOCK);
    expect(out.split("\n").slice(-50)).toEqual(rest.slice(-50).map(redact));
  });

  test("a body cut mid-line by the window (one short line first) still goes", () => {
    const lines = body.text.split("\n");
    const out = redact(["sQ==", ...lines].join("\n"));
    expect(leaked(out, body.secrets)).toEqual([]);
  });
});
