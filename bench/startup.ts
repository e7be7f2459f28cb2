#!/usr/bin/env bun
/**
 * Startup cost of `dist/vx status` in an empty, initialized project against a compiled empty Bun
 * program, measured in the same run (interleaved, so machine noise hits both alike).
 * Usage: bun run build && bun bench/startup.ts [runs]
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const runs = Number(process.argv[2] ?? 60);
const vxBin = resolve(import.meta.dir, "..", "dist", "vx");
const base = realpathSync(mkdtempSync(join(tmpdir(), "vx-bench-")));
const home = join(base, "home");
const project = join(base, "project");

function sh(argv: string[], cwd: string, env: Record<string, string>): void {
  const r = Bun.spawnSync(argv, { cwd, env, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${r.stderr.toString()}`);
}

const env = { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" };
sh(["mkdir", "-p", home, project], base, env);
sh(["git", "init", "-q", "-b", "main"], project, env);
sh(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty", "-m", "i"], project, env);
sh([vxBin, "init", "--yes"], project, env);

writeFileSync(join(base, "empty.ts"), "");
sh(["bun", "build", "--compile", join(base, "empty.ts"), "--outfile", join(base, "empty")], base, env);

function timeOnce(argv: string[]): number {
  const t0 = Bun.nanoseconds();
  const r = Bun.spawnSync(argv, { cwd: project, env, stdout: "pipe", stderr: "pipe" });
  const t = (Bun.nanoseconds() - t0) / 1e6;
  if (r.exitCode !== 0) throw new Error(`${argv[0]} exited ${r.exitCode}: ${r.stderr.toString()}`);
  return t;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const vxTimes: number[] = [];
const emptyTimes: number[] = [];
for (let i = 0; i < 5; i++) {
  timeOnce([vxBin, "status"]);
  timeOnce([join(base, "empty")]);
}
for (let i = 0; i < runs; i++) {
  vxTimes.push(timeOnce([vxBin, "status"]));
  emptyTimes.push(timeOnce([join(base, "empty")]));
}
rmSync(base, { recursive: true, force: true });

const mv = median(vxTimes);
const me = median(emptyTimes);
console.log(`runs: ${runs} each, interleaved`);
console.log(`empty bun binary: median ${me.toFixed(2)} ms`);
console.log(`vx status:        median ${mv.toFixed(2)} ms`);
console.log(`ratio (vx status / empty): ${(mv / me).toFixed(2)}x`);
