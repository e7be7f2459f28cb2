// The forum's colours meet WCAG AA (FOR-13): every text/background pair the stylesheet uses, computed
// from forum.css's own custom properties, light and dark, at 4.5:1 or more.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../helpers";

const CSS = readFileSync(join(REPO, "src", "forum", "assets", "forum.css"), "utf8");

/** The custom properties of the first `:root { … }` after `from`. */
function vars(from: number): Record<string, string> {
  const start = CSS.indexOf(":root {", from);
  const body = CSS.slice(start + 7, CSS.indexOf("}", start));
  return Object.fromEntries([...body.matchAll(/(--[a-z-]+):\s*(#[0-9a-f]{6})\s*;/gi)].map((m) => [m[1], (m[2] as string).toLowerCase()]));
}

const LIGHT = vars(0);
const DARK = vars(CSS.indexOf("@media (prefers-color-scheme: dark)"));

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function ratio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

// [text, background]: each pairing some rule of forum.css paints.
const PAIRS: [string, string][] = [
  ["--ink", "--bg"],
  ["--ink", "--card"],
  ["--ink", "--code-bg"],
  ["--ink", "--chip"],
  ["--muted", "--bg"],
  ["--muted", "--card"],
  ["--muted", "--chip"],
  ["--accent", "--card"],
  ["--accent", "--bg"],
  ["--accent", "--accent-bg"],
  ["--on-accent", "--accent"],
  ["--warn", "--card"],
  ["--warn", "--warn-bg"],
  ["--bad", "--card"],
  ["--bad", "--bad-bg"],
  ["--good", "--card"],
  ["--good", "--good-bg"],
  ["--ink", "--accent-bg"],
  ["--ink", "--good-bg"],
  ["--muted", "--accent-bg"],
  ["--muted", "--good-bg"],
];

describe("the forum's contrast (FOR-13, WCAG AA)", () => {
  test("light and dark define the same colours, as six-digit hex", () => {
    expect(Object.keys(LIGHT).length).toBeGreaterThan(15);
    expect(Object.keys(DARK).sort()).toEqual(Object.keys(LIGHT).sort());
    for (const [a, b] of PAIRS) for (const name of [a, b]) expect(LIGHT[name]).toMatch(/^#[0-9a-f]{6}$/);
  });

  for (const [scheme, palette] of [
    ["light", LIGHT],
    ["dark", DARK],
  ] as const) {
    test(`${scheme}: every text/background pair is at least 4.5:1`, () => {
      const low = PAIRS.map(([t, b]) => ({ pair: `${t} on ${b}`, ratio: Math.round(ratio(palette[t] as string, palette[b] as string) * 100) / 100 })).filter((p) => p.ratio < 4.5);
      expect(low).toEqual([]);
    });
  }

  test("the check can fail: the old pairs just under AA (muted on a chip, green on its badge) are caught", () => {
    expect(ratio("#667085", "#eef0f4")).toBeLessThan(4.5);
    expect(ratio("#157f3d", "#e6f4ea")).toBeLessThan(4.5);
    expect(ratio("#000000", "#ffffff")).toBeCloseTo(21, 5);
  });
});
