// AWT-05/AWT-12: how long an await listens and what it does at its limit, as pure decisions driven
// by a fake clock: a day of listening, inside the hook's timeout, then one re-arm turn for Claude
// Code (whose next await starts only after a turn) and a quiet end for owners that restart it.
import { describe, expect, test } from "bun:test";
import { listenDeadline, nextStep, rearmsByTurn } from "../../src/awaiters/rearm";
import { hookEntry } from "../../src/scaffold/hook";
import { GUARDS } from "../../src/time";
import { fakeClock } from "../deps";

const HOUR = 3600_000;
const real = {};

/**
 * An idle commander over `spanMs` with nothing to report: each await listens until its step says
 * otherwise; a re-arm is one model turn, after which (taking `turnMs`) the next Stop starts the
 * next await. Returns the times of the turns, relative to the start.
 */
function idleTurns(spanMs: number, env: Record<string, string>, turnMs = 20_000): number[] {
  const clock = fakeClock();
  const start = clock.now();
  const turns: number[] = [];
  let deadline = listenDeadline(clock.now(), env);
  while (clock.now() - start < spanMs) {
    const step = nextStep(clock.now(), deadline, env, true);
    if (step.kind === "wait") {
      clock.advance(step.ms);
      continue;
    }
    expect(step.kind).toBe("rearm");
    turns.push(clock.now() - start);
    clock.advance(turnMs);
    deadline = listenDeadline(clock.now(), env);
  }
  return turns;
}

describe("an await's day", () => {
  test("a wake at 2 h or 20 h still finds the first await listening", () => {
    const clock = fakeClock();
    const deadline = listenDeadline(clock.now(), real);
    for (const at of [2 * HOUR, 20 * HOUR, 23.9 * HOUR]) {
      expect(nextStep(clock.now() + at, deadline, real, true).kind).toBe("wait");
    }
  });

  test("it stops listening at least 5 minutes before Claude Code kills the hook", () => {
    const clock = fakeClock();
    const limit = listenDeadline(clock.now(), real) - clock.now();
    expect(hookEntry().timeout * 1000 - limit).toBeGreaterThanOrEqual(5 * 60_000);
    expect(limit).toBeGreaterThanOrEqual(24 * HOUR);
  });

  test("48 idle hours cost a Claude Code commander at most 2 turns, never two within 24 h", () => {
    const turns = idleTurns(48 * HOUR, real);
    expect(turns.length).toBeGreaterThanOrEqual(1); // it does re-arm: never deaf
    expect(turns.length).toBeLessThanOrEqual(2);
    for (let i = 1; i < turns.length; i++) expect(turns[i]! - turns[i - 1]!).toBeGreaterThanOrEqual(24 * HOUR);
  });

  test("a weekend costs at most 3 turns, and the scale shrinks every step alike", () => {
    expect(idleTurns(72 * HOUR, real).length).toBeLessThanOrEqual(3);
    const fast = { VX_TIME_SCALE: "0.001" };
    expect(idleTurns(48 * HOUR * 0.001, fast, 20).length).toBeLessThanOrEqual(2);
  });

  test("a tiny scale never makes the poll a busy loop", () => {
    const clock = fakeClock();
    const env = { VX_TIME_SCALE: "0.000001" };
    const step = nextStep(clock.now(), clock.now() + HOUR, env, true);
    expect(step).toEqual({ kind: "wait", ms: GUARDS.awaitPollFloor });
  });

  test("a poll never waits past the deadline; at it, an owner that restarts its await ends quietly", () => {
    const clock = fakeClock();
    expect(nextStep(clock.now(), clock.now() + 1000, real, false)).toEqual({ kind: "wait", ms: 1000 });
    expect(nextStep(clock.now(), clock.now(), real, false)).toEqual({ kind: "end" });
    expect(nextStep(clock.now(), clock.now(), real, true)).toEqual({ kind: "rearm" });
  });
});

describe("rearmsByTurn", () => {
  test.each([
    ["the native Claude Code, by path", "/home/u/.local/share/claude/versions/2.1.332", { CLAUDECODE: "1" }, true],
    ["a path naming claude without Claude Code's mark", "/home/u/.local/share/claude/versions/2.1.332", {}, false],
    ["claude on PATH", "claude --resume", {}, true],
    ["the npm install's native binary", "/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe", {}, true],
    ["Claude Code run through node", "node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js", { CLAUDECODE: "1" }, true],
    ["Pi", "node /usr/lib/node_modules/@mariozechner/pi-coding-agent/dist/cli.js", {}, false],
    ["OpenCode", "/usr/local/bin/opencode", {}, false],
    ["a test process", "bun test", {}, false],
  ])("%s", (_name, command, env, want) => {
    expect(rearmsByTurn(command, env as Record<string, string>)).toBe(want);
  });
});
