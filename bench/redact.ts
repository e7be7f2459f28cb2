#!/usr/bin/env bun
/**
 * The redactor on 500-line captures (what the sentinel reads on every settle and `vx wait` tails),
 * against the one before issue 9 (bench/redact-baseline.ts), interleaved in one run.
 * 1. Speed: median milliseconds per 500-line capture of ordinary pane text, and of one with a secret
 *    every 25 lines. Goal: under 2 ms.
 * 2. False positives: lines changed per 1,000 lines of ordinary source code and logs (goal <= 3), and
 *    the secret corpus and the held-out style sets: cases that still hold a secret (goal 0).
 * Usage: bun bench/redact.ts [runs=400] [--lines: print every ordinary line the new redactor changes]
 */
import { redact } from "../src/redact";
import { ORDINARY_LINES } from "../test/fixtures/ordinary/index";
import { SECRET_BLOCKS, SECRET_CASES } from "../test/fixtures/secret-corpus";
import { HELD_OUT, HELD_OUT_B } from "../test/fixtures/secret-heldout";
import { HELD_OUT_C } from "../test/fixtures/secret-heldout-c";
import { median } from "./lib";
import { redact as baseline } from "./redact-baseline";

const runs = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 400);
const showLines = process.argv.includes("--lines");

// Captures: consecutive 500-line windows over the ordinary corpus, and the same windows with a line
// of the secret corpus every 25 lines.
const windows: string[] = [];
const salted: string[] = [];
for (let at = 0; at + 500 <= ORDINARY_LINES.length; at += 500) {
  const w = ORDINARY_LINES.slice(at, at + 500);
  windows.push(w.join("\n"));
  salted.push(w.map((l, i) => (i % 25 === 0 ? SECRET_CASES[(at / 25 + i / 25) % SECRET_CASES.length].line : l)).join("\n"));
}

// Wall-clock and CPU time per capture: on a shared machine the wall clock also counts the time the
// process waited for a CPU, so the CPU time is printed next to it.
function perCapture(fn: (t: string) => string, texts: string[]): { wall: number; cpu: number } {
  const t0 = Bun.nanoseconds();
  const c0 = process.cpuUsage();
  for (const t of texts) fn(t);
  const c = process.cpuUsage(c0);
  return { wall: (Bun.nanoseconds() - t0) / 1e6 / texts.length, cpu: (c.user + c.system) / 1e3 / texts.length };
}

type Series = { wall: number[]; cpu: number[] };
const series = (): Series => ({ wall: [], cpu: [] });
const times = { new: series(), old: series(), newSalted: series(), oldSalted: series() };
for (let i = 0; i < runs + 20; i++) {
  const got = { new: perCapture(redact, windows), old: perCapture(baseline, windows), newSalted: perCapture(redact, salted), oldSalted: perCapture(baseline, salted) };
  if (i < 20) continue; // warm-up: let the JIT settle
  for (const k of ["new", "old", "newSalted", "oldSalted"] as const) {
    times[k].wall.push(got[k].wall);
    times[k].cpu.push(got[k].cpu);
  }
}

function falsePositives(fn: (t: string) => string): { changed: string[]; perMille: number } {
  const changed = ORDINARY_LINES.filter((l) => fn(l) !== l);
  return { changed, perMille: (changed.length * 1000) / ORDINARY_LINES.length };
}

function leaks(fn: (t: string) => string): number {
  const lines = SECRET_CASES.filter((c) => c.secrets.some((s) => fn(c.line).includes(s))).length;
  const blocks = SECRET_BLOCKS.filter((c) => c.secrets.some((s) => fn(c.text).includes(s))).length;
  return lines + blocks;
}

const fpNew = falsePositives(redact);
const fpOld = falsePositives(baseline);
const cases = SECRET_CASES.length + SECRET_BLOCKS.length;
const families = new Set([...SECRET_CASES, ...SECRET_BLOCKS].map((c) => c.family)).size;
const m = (xs: number[]) => median(xs).toFixed(3);

console.log(`${windows.length} captures of 500 lines, ${runs} interleaved runs, median ms per capture (goal < 2 ms)`);
const row = (name: string, n: Series, o: Series) =>
  console.log(`  ${name}new ${m(n.wall)} ms (cpu ${m(n.cpu)})   before issue 9 ${m(o.wall)} ms (cpu ${m(o.cpu)})   ratio ${(median(n.wall) / median(o.wall)).toFixed(2)}x`);
row("ordinary text:        ", times.new, times.old);
row("a secret every 25:    ", times.newSalted, times.oldSalted);
console.log(`false positives over ${ORDINARY_LINES.length} ordinary lines (goal <= 3 per 1,000)`);
console.log(`  new: ${fpNew.changed.length} lines changed, ${fpNew.perMille.toFixed(2)} per 1,000`);
console.log(`  before issue 9: ${fpOld.changed.length} lines changed, ${fpOld.perMille.toFixed(2)} per 1,000`);
console.log(`secret corpus: ${cases} cases over ${families} families (goal 0 left)`);
console.log(`  new: ${leaks(redact)} still hold a secret   before issue 9: ${leaks(baseline)}`);
const heldOut = (fn: (t: string) => string, set = HELD_OUT) => set.filter((c) => c.secrets.some((s) => fn(c.text).includes(s))).length;
console.log(`held-out style set A (never tuned on): ${HELD_OUT.length} cases over ${new Set(HELD_OUT.map((c) => c.family)).size} families`);
console.log(`  new: ${heldOut(redact)} still hold a secret   before issue 9: ${heldOut(baseline)}`);
console.log(`held-out style set B (4 shapes fixed after its first run): ${HELD_OUT_B.length} cases`);
console.log(`  new: ${heldOut(redact, HELD_OUT_B)} still hold a secret   before issue 9: ${heldOut(baseline, HELD_OUT_B)}`);
console.log(`held-out style set C (issue 25, written before its rules): ${HELD_OUT_C.length} cases over ${new Set(HELD_OUT_C.map((c) => c.family)).size} families`);
console.log(`  new: ${heldOut(redact, HELD_OUT_C)} still hold a secret   before issue 9: ${heldOut(baseline, HELD_OUT_C)}`);
if (showLines) for (const l of fpNew.changed) console.log(`  changed: ${l}`);
