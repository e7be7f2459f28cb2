// The sentinel's pure decision (SEN-07..19) driven with a fake clock: every window, hold and note.
import { describe, expect, test } from "bun:test";
import { type Action, NOMINAL_WINDOWS, type Observation, decide } from "../../src/lifecycle/decide";
import { TRAILER } from "../../src/lifecycle/evidence";
import { NOTE_AGENT_GONE } from "../../src/backends/herdr";
import { NOTE_TMUX_GONE } from "../../src/backends/tmux";
import * as notes from "../../src/lifecycle/notes";
import type { Task } from "../../src/state/schemas";
import { taskFixture } from "../helpers";

const T0 = Date.parse("2026-11-30T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const S = 1000;
const MIN = 60 * S;

function task(over: Partial<Task> = {}): Task {
  return taskFixture({ prompt: "p", created_at: iso(T0), updated_at: iso(T0), backend: "herdr", herdr_agent_name: "vx-p", ...over });
}

const run = (t: Task, obs: Observation, at: number): Action => decide(t, obs, at, NOMINAL_WINDOWS, "proj-12345678");
const idle = (over: Partial<Extract<Observation, { kind: "idle" }>> = {}): Observation => ({
  kind: "idle",
  transcript: `> do it\n${TRAILER}\n\nI looked around.\n`,
  completion: false,
  pause: "none",
  ...over,
});

describe("settle grace (SEN-07)", () => {
  test.each([0, 7999])("skipped %d ms after updated_at", (dt) => {
    expect(run(task(), { kind: "missing" }, T0 + dt)).toEqual({ type: "none" });
    expect(run(task(), idle({ completion: true }), T0 + dt)).toEqual({ type: "none" });
  });
  test("acts at 8 s", () => {
    expect(run(task(), { kind: "missing" }, T0 + 8 * S).type).toBe("mark");
  });
  test("an updated_at in the future (the clock stepped back) does not freeze the task", () => {
    expect(run(task({ updated_at: iso(T0 + 3_600 * S) }), { kind: "missing" }, T0).type).toBe("mark");
    const marked = task({ updated_at: iso(T0 + 3_600 * S), agent_not_found_since: iso(T0 + 3_600 * S) });
    expect(run(marked, { kind: "missing" }, T0).type).toBe("settle");
  });
});

describe("not found -> interrupted (SEN-08)", () => {
  const at = T0 + MIN;
  test("first sighting missing sets the mark", () => {
    expect(run(task(), { kind: "missing" }, at)).toEqual({ type: "mark", patch: { agent_not_found_since: iso(at) }, log: undefined });
  });
  test("inside the 10 s window: nothing", () => {
    expect(run(task({ agent_not_found_since: iso(at - 9999) }), { kind: "missing" }, at)).toEqual({ type: "none" });
  });
  test("after 10 s: interrupted with the note, previous output kept", () => {
    const a = run(task({ agent_not_found_since: iso(at - 10 * S), output: "earlier" }), { kind: "missing" }, at);
    expect(a).toEqual({ type: "settle", to: "interrupted", output: `earlier\n\n${NOTE_AGENT_GONE}`, note: NOTE_AGENT_GONE });
  });
  test("tmux variant of the note", () => {
    const a = run(task({ backend: "tmux", agent_not_found_since: iso(at - 10 * S) }), { kind: "missing" }, at);
    expect(a).toMatchObject({ to: "interrupted", note: NOTE_TMUX_GONE });
  });
  test("a sighting clears the mark (a blip never counts later)", () => {
    const t = task({ agent_not_found_since: iso(at - 5 * S) });
    expect(run(t, { kind: "present", status: "working" }, at)).toEqual({ type: "mark", patch: { agent_not_found_since: undefined }, log: undefined });
    expect(run(t, { kind: "present", status: "unknown" }, at)).toMatchObject({ patch: { agent_not_found_since: undefined } });
  });
});

describe("status mapping (SEN-09, SEN-10)", () => {
  const at = T0 + MIN;
  test("working clears the unconfirmed and held marks", () => {
    const t = task({ idle_unconfirmed_since: iso(at - S), held_running_since: iso(at - S) });
    expect(run(t, { kind: "present", status: "working" }, at)).toEqual({
      type: "mark",
      patch: { idle_unconfirmed_since: undefined, held_running_since: undefined },
      log: undefined,
    });
  });
  test("working with no marks: nothing to write", () => {
    expect(run(task(), { kind: "present", status: "working" }, at)).toEqual({ type: "none" });
  });
  test("blocked with a modal dialog: modal decision, redacted transcript as output", () => {
    const visible = [
      "☐ Database",
      "",
      "Which database should I use?",
      "",
      "❯ 1. Postgres",
      "  2. SQLite",
      "  3. Type something.",
      "  4. Chat about this",
      "",
      "Enter to select · ↑/↓ to navigate · Esc to cancel",
    ].join("\n");
    const a = run(task(), { kind: "blocked", transcript: "export OPENAI_API_KEY=sk-abcdefabcdefabcdefabcd\nasking", visible }, at);
    expect(a).toMatchObject({
      type: "settle",
      to: "blocked",
      output: "[redacted sensitive line]\nasking",
      decision: { question: "Which database should I use?", options: ["Postgres", "SQLite", "Type something.", "Chat about this"], kind: "modal", asked_at: iso(at) },
    });
  });
  test("blocked without a parsable dialog: prose-fallback question, still answered as a dialog", () => {
    const a = run(task(), { kind: "blocked", transcript: "Work so far.\n\nShould I delete the cache?\n- yes\n- no", visible: "no dialog here" }, at);
    expect(a).toMatchObject({ to: "blocked", decision: { kind: "modal", question: "Should I delete the cache?", options: ["yes", "no"] } });
  });
});

describe("idle settlement (SEN-11..18)", () => {
  const at = T0 + MIN;
  const spinner = `${TRAILER}\n✻ Tempering… (12s · ↑ 1.2k tokens · esc to interrupt)\n`;

  test("a turn in progress holds, first hold logs, even with a completion signal", () => {
    const a = run(task(), idle({ transcript: spinner, completion: true }), at);
    expect(a).toEqual({
      type: "mark",
      patch: { held_running_since: iso(at) },
      log: "sentinel: holding mission 0123456789abcdef (proj-12345678) running - a spinner line with a timer",
    });
  });
  test("a tool line holds", () => {
    const a = run(task(), idle({ transcript: `${TRAILER}\n  ⎿  Running… \n` }), at);
    expect(a).toMatchObject({ type: "mark", log: expect.stringContaining('a "Running..." tool line') });
  });
  test("held under the limit: no new log; an active pause still records pause_seen_at", () => {
    const t = task({ held_running_since: iso(at - 29 * MIN) });
    expect(run(t, idle({ transcript: spinner }), at)).toEqual({ type: "none" });
    expect(run(t, idle({ transcript: spinner, pause: "active" }), at)).toEqual({ type: "mark", patch: { pause_seen_at: iso(at) }, log: undefined });
  });
  test("held 30 minutes: unconfirmed with the still-running note", () => {
    const t = task({ held_running_since: iso(at - 30 * MIN) });
    const a = run(t, idle({ transcript: `${TRAILER}\n2 background tasks still running\n` }), at);
    const note = notes.noteStillRunning('"2 background tasks still running"');
    expect(a).toEqual({ type: "settle", to: "unconfirmed", output: `${TRAILER}\n2 background tasks still running\n\n${note}`, note });
  });
  test("a needs-decision line asks for stabilization, then settles blocked (prose)", () => {
    const transcript = `${TRAILER}\nDone half.\nneeds-decision: keep the old API or break it?\n`;
    expect(run(task(), idle({ transcript }), at)).toEqual({ type: "stabilize", toward: "blocked" });
    const a = run(task(), idle({ transcript, stability: "stable" }), at);
    expect(a).toMatchObject({
      type: "settle",
      to: "blocked",
      decision: { question: "keep the old API or break it?", options: [], kind: "prose", asked_at: iso(at) },
      note: undefined,
    });
  });
  test("an answered question in scrollback does not re-block", () => {
    const transcript = `${TRAILER}\nneeds-decision: keep the old API or break it?\n`;
    const t = task({ decision: { question: "keep the old API or break it?", options: [], asked_at: iso(T0), answered_at: iso(T0), kind: "prose" } });
    expect(run(t, idle({ transcript }), at)).toMatchObject({ type: "mark", patch: { idle_unconfirmed_since: iso(at) } });
  });
  test("the echoed template line before the trailer never blocks", () => {
    const transcript = `needs-decision: <a one-line summary of the question and any options>\nUse that line only when you truly need a decision; ${TRAILER}\nAll good.\n`;
    expect(run(task(), idle({ transcript }), at).type).toBe("mark");
  });
  test("background work holds after the decision check", () => {
    const a = run(task(), idle({ transcript: `${TRAILER}\n1 shell still running\n`, completion: true }), at);
    expect(a).toMatchObject({ type: "mark", log: expect.stringContaining('"1 shell still running"') });
  });
  test("completion signal: stabilize, then done with report path; held mark cleared", () => {
    const t = task({ kind: "scout", held_running_since: iso(at - MIN) });
    expect(run(t, idle({ completion: true, reportPath: "/r.md" }), at)).toEqual({ type: "stabilize", toward: "done" });
    const a = run(t, idle({ completion: true, reportPath: "/r.md", stability: "stable" }), at);
    expect(a).toMatchObject({ type: "settle", to: "done", reportPath: "/r.md", note: undefined });
  });
  test.each([
    ["unstable", notes.noteUnstable("done")],
    ["unreadable", notes.noteUnreadable("done")],
  ] as const)("a %s pane settles anyway with its note", (stability, note) => {
    const obs = idle({ completion: true, stability, transcript: stability === "unreadable" ? undefined : "final words" });
    const a = run(task({ output: "before" }), obs, at);
    expect(a).toMatchObject({ type: "settle", to: "done", note });
    expect((a as { output: string }).output).toBe(`${stability === "unreadable" ? "before" : "final words"}\n\n${note}`);
  });
  test("a stabilized read that shows a turn in progress abandons the settlement and holds", () => {
    expect(run(task(), idle({ completion: true, stability: "stable", transcript: spinner }), at)).toMatchObject({ type: "mark", patch: { held_running_since: iso(at) } });
  });
  test("active pause: records pause_seen_at, clears the unconfirmed mark, stays running", () => {
    const t = task({ idle_unconfirmed_since: iso(at - 20 * S) });
    expect(run(t, idle({ pause: "active" }), at)).toEqual({
      type: "mark",
      patch: { pause_seen_at: iso(at), idle_unconfirmed_since: undefined },
      log: undefined,
    });
  });
  test("unexplained idle: mark, wait 30 s, then unconfirmed with the no-pause note", () => {
    expect(run(task(), idle(), at)).toEqual({ type: "mark", patch: { idle_unconfirmed_since: iso(at) }, log: undefined });
    expect(run(task({ idle_unconfirmed_since: iso(at - 29 * S) }), idle(), at)).toEqual({ type: "none" });
    const a = run(task({ idle_unconfirmed_since: iso(at - 30 * S) }), idle(), at);
    expect(a).toMatchObject({ type: "settle", to: "unconfirmed", note: notes.NOTE_IDLE_NO_PAUSE });
  });
  test("pause seen earlier, file gone: the pause-gone note names the first sighting", () => {
    const t = task({ idle_unconfirmed_since: iso(at - 30 * S), pause_seen_at: "2026-11-30T11:00:00.000Z" });
    expect(run(t, idle({ pause: "none" }), at)).toMatchObject({ note: notes.notePauseGone("2026-11-30T11:00:00.000Z") });
  });
  test("pause file older than 30 minutes: the stale-pause note", () => {
    const t = task({ idle_unconfirmed_since: iso(at - 30 * S), pause_seen_at: iso(T0) });
    expect(run(t, idle({ pause: "stale" }), at)).toMatchObject({ note: notes.NOTE_PAUSE_STALE });
  });
  test("secrets in the pane never reach the output", () => {
    const t = task({ idle_unconfirmed_since: iso(at - 30 * S) });
    const a = run(t, idle({ transcript: "token: abc\nsee https://bob:hunter2@example.com/x" }), at) as { output: string };
    expect(a.output).not.toContain("hunter2");
    expect(a.output).not.toContain("token: abc");
  });
});
