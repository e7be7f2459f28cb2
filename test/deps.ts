/** In-process Deps for tests: captured output, scripted stdin answers, a controllable clock. */
import type { Deps } from "../src/deps";
import { realExec } from "../src/exec";
import type { Clock } from "../src/time";

export type TestDeps = Deps & { out: string[]; err: string[]; text(): { stdout: string; stderr: string } };

/**
 * A clock under the test's hand: `advance` and `sleep` move time on (both clocks); `step` moves the
 * wall clock alone, as NTP or a person setting it does (negative: it steps back).
 */
export function fakeClock(start = Date.parse("2026-11-30T12:00:00Z")): Clock & { advance(ms: number): void; step(ms: number): void } {
  let now = start;
  let mono = 0;
  return {
    now: () => now,
    monotonic: () => mono,
    async sleep(ms) {
      now += ms;
      mono += ms;
    },
    advance(ms) {
      now += ms;
      mono += ms;
    },
    step(ms) {
      now += ms;
    },
  };
}

export function testDeps(opts: { cwd: string; env: Record<string, string>; tty?: boolean; answers?: (string | undefined)[]; clock?: Clock }): TestDeps {
  const out: string[] = [];
  const err: string[] = [];
  const answers = [...(opts.answers ?? [])];
  return {
    env: opts.env,
    cwd: opts.cwd,
    exec: realExec,
    clock: opts.clock ?? fakeClock(),
    stdout: { write: (t) => (out.push(t), true) },
    stderr: { write: (t) => (err.push(t), true) },
    stdinIsTTY: opts.tty ?? false,
    readLine: async () => answers.shift(),
    // In-process tests never start a real sentinel: an auto-start runs `false sentinel`, which
    // exits at once, and is reported as the failure it is.
    self: ["false"],
    pid: process.pid,
    ppid: () => process.ppid,
    out,
    err,
    text: () => ({ stdout: out.join(""), stderr: err.join("") }),
  };
}
