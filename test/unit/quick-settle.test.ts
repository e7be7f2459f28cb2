// The quick-settle probe (CMD-DISPATCH-06) over every prompt outcome, and the guarded save.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { PromptOutcome } from "../../src/backends/types";
import { guardedSave } from "../../src/state/guarded";
import type { Settlement } from "../../src/backends/terminal-types";
import type { AgentInfo } from "../../src/backends/agents";
import type { HerdrClient } from "../../src/backends/herdr/client";
import type { HerdrOps } from "../../src/backends/herdr/ops";
import { realExec } from "../../src/exec";
import { SENSITIVE_LINE } from "../../src/redact";
import { noteUnstable } from "../../src/lifecycle/notes";
import { pausePath, reportPath } from "../../src/lifecycle/observe";
import { quickSettle as herdrQuickSettle } from "../../src/backends/herdr/launch";
import { settleSeen } from "../../src/soldiers/quick-settle";
import { type ProjectPaths, stateDirPaths } from "../../src/state/paths";
import type { Task } from "../../src/state/schemas";
import { taskFixture } from "../helpers";
import { createTask, loadTask } from "../../src/state/tasks";
import { fakeClock } from "../deps";

// The herdr probe with the judgement every terminal is given.
const quickSettle = (ctx: { ops: HerdrOps; exec: typeof realExec; paths: ProjectPaths }, t: Task, o: PromptOutcome) => herdrQuickSettle({ ...ctx, judge: settleSeen }, t, o);

const NOW = Date.parse("2026-11-30T12:00:00Z");
const ECHO = "> survey auth\n  Use that line only when you truly need a decision; do not use it for an ordinary status update.\n";

let dir: string;
let paths: ProjectPaths;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vx-qs-"));
  paths = stateDirPaths(join(dir, "state"), join(dir, "project"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function task(over: Partial<Task> = {}): Task {
  return taskFixture({
    kind: "scout",
    prompt: "survey auth",
    created_at: "2026-11-30T11:00:00.000Z",
    updated_at: "2026-11-30T11:59:59.000Z",
    output: "previous",
    backend: "herdr",
    herdr_agent_name: "vx-survey-auth",
    herdr_pane_id: "w1:p2",
    harness: "claude",
    held_running_since: "2026-11-30T11:00:00.000Z",
    ...over,
  });
}

function agent(status: string): AgentInfo {
  return { agent_status: status, pane_id: "w1:p2", tab_id: "w1:t2", workspace_id: "w1", state_change_seq: 3, interactive_ready: true, name: "vx-survey-auth", agent: "claude" };
}

/** Reads answer from `transcripts` in turn (the last one repeats); `visible` for the screen. */
function ops(transcripts: (string | undefined)[], visible?: string): HerdrOps & { reads: string[] } {
  const reads: string[] = [];
  let i = 0;
  const herdr = {
    async agentRead(target: string, source?: string) {
      reads.push(`${target} ${source}`);
      if (source === "visible") {
        if (visible === undefined) throw new Error("no screen");
        return visible;
      }
      const text = transcripts[Math.min(i++, transcripts.length - 1)];
      if (text === undefined) {
        const { HerdrError } = await import("../../src/backends/herdr/types");
        throw new HerdrError("agent_not_idle", "busy", []);
      }
      return text;
    },
  } as unknown as HerdrClient;
  return { herdr, clock: fakeClock(NOW), env: {}, reads };
}

function withReport(t: Task): Task {
  const file = reportPath(paths, t);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, "# report\n");
  return t;
}

const settled = (status: string): PromptOutcome => ({ kind: "settled", agent: agent(status) });
const MARKS_CLEARED = { agent_not_found_since: undefined, idle_unconfirmed_since: undefined, held_running_since: undefined };

describe("quick-settle", () => {
  test.each<[string, PromptOutcome]>([
    ["timeout", { kind: "timeout" }],
    ["sent", { kind: "sent" }],
    ["working", settled("working")],
    ["unknown", settled("unknown")],
    ["empty status", settled("")],
  ])("%s stays running without reading the pane", async (_name, outcome) => {
    const o = ops(["x"]);
    expect(await quickSettle({ ops: o, exec: realExec, paths }, task(), outcome)).toEqual({ status: "running", fields: {} });
    expect(o.reads).toEqual([]);
  });

  const MODAL = [" ☐ Auth", "", "Which provider first?", "", "❯ 1. OAuth", "  2. SAML", "  3. Type something.", "  4. Chat about this", "", "Enter to select · ↑/↓ to navigate · Esc to cancel"].join(
    "\n",
  );

  test("blocked: a modal decision from the screen, the redacted transcript as output", async () => {
    const o = ops([`${ECHO}api_key=sk-123\nthinking\n`], MODAL);
    const s = await quickSettle({ ops: o, exec: realExec, paths }, task(), settled("blocked"));
    expect(s).toEqual({
      status: "blocked",
      fields: {
        status: "blocked",
        updated_at: "2026-11-30T12:00:00.000Z",
        output: `${ECHO}${SENSITIVE_LINE}\nthinking`,
        decision: {
          question: "Which provider first?",
          options: ["OAuth", "SAML", "Type something.", "Chat about this"],
          asked_at: "2026-11-30T12:00:00.000Z",
          kind: "modal",
        },
        ...MARKS_CLEARED,
      },
    });
    expect(o.reads).toEqual(["vx-survey-auth recent-unwrapped", "vx-survey-auth visible"]);
  });

  test("blocked without a parsable dialog: the prose fallback", async () => {
    const o = ops(["Should I proceed?\n- yes\n- no\n"], "garbled");
    const s = await quickSettle({ ops: o, exec: realExec, paths }, task(), settled("blocked"));
    expect(s.fields.decision).toMatchObject({ question: "Should I proceed?", options: ["yes", "no"], kind: "modal" });
  });

  type Row = { name: string; pane: string; report?: boolean; pause?: "active" | "stale"; over?: Partial<Task>; want: Settlement["status"] };
  test.each<Row>([
    { name: "a needs-decision line", pane: "needs-decision: OAuth or SAML?\n", want: "blocked" },
    { name: "the report", pane: "⏺ Report written.\n", report: true, want: "done" },
    { name: "a spinner with a timer, even with the report", pane: "✻ Thinking… (12s · esc to interrupt)\n", report: true, want: "running" },
    { name: "a Running… tool line", pane: "⏺ Bash(make)\n  ⎿  Running…\n", report: true, want: "running" },
    { name: "background work, even with the report", pane: "⏺ Done.\n1 shell still running\n", report: true, want: "running" },
    { name: "nothing at all (never unconfirmed)", pane: "⏺ Done.\n", over: { idle_unconfirmed_since: "2026-11-30T10:00:00.000Z" }, want: "running" },
    { name: "an active pause", pane: "⏺ Waiting on CI.\n", pause: "active", want: "running" },
    { name: "a stale pause", pane: "⏺ Waiting on CI.\n", pause: "stale", want: "running" },
    { name: "the template line of the echo", pane: "needs-decision: <a one-line summary of the question and any options>\n", want: "running" },
    {
      name: "a question already answered",
      pane: "needs-decision: OAuth or SAML?\n",
      over: { decision: { question: "OAuth or SAML?", options: [], asked_at: "2026-11-30T11:00:00.000Z", answered_at: "2026-11-30T11:30:00.000Z", kind: "prose" } },
      want: "running",
    },
  ])("idle with $name -> $want", async ({ pane, report, pause, over, want }) => {
    const t = task(over);
    if (report) withReport(t);
    if (pause) {
      const file = pausePath(paths, t);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, "paused: CI\n");
      const when = pause === "active" ? NOW / 1000 : NOW / 1000 - 3600;
      utimesSync(file, when, when);
    }
    const s = await quickSettle({ ops: ops([`${ECHO}${pane}`]), exec: realExec, paths }, t, settled("done"));
    expect(s.status).toBe(want);
    if (want === "running") expect(s.fields).toEqual({});
  });

  test("idle with the report after stable reads: done, output the stable read, marks cleared", async () => {
    const t = withReport(task());
    const o = ops([`${ECHO}partial`, `${ECHO}final\n`, `${ECHO}final\n`]);
    const s = await quickSettle({ ops: o, exec: realExec, paths }, t, settled("idle"));
    expect(s).toEqual({
      status: "done",
      fields: { status: "done", updated_at: "2026-11-30T12:00:02.000Z", output: `${ECHO}final`, ...MARKS_CLEARED },
    });
    expect(o.reads).toHaveLength(3);
  });

  test("a pane that never stops changing is settled with the unstable note", async () => {
    const t = withReport(task());
    const o = ops([1, 2, 3, 4, 5].map((n) => `${ECHO}line ${n}\n`));
    const s = await quickSettle({ ops: o, exec: realExec, paths }, t, settled("idle"));
    expect(s.status).toBe("done");
    expect(s.fields.output).toBe(`${ECHO}line 5\n\n${noteUnstable("done")}`);
  });

  test("a stabilized read that shows a turn in progress abandons the settlement", async () => {
    const t = task();
    const o = ops(["needs-decision: OAuth?\n", "needs-decision: OAuth?\n✻ Thinking… (2s)\n"]);
    expect((await quickSettle({ ops: o, exec: realExec, paths }, t, settled("idle"))).status).toBe("running");
  });

  test("a mission's completion signal is a commit ahead of its base; no camp means none", async () => {
    const t = task({ kind: "mission", camp_path: join(dir, "nowhere"), camp_base: "main" });
    expect((await quickSettle({ ops: ops(["⏺ Done.\n"]), exec: realExec, paths }, t, settled("idle"))).status).toBe("running");
  });
});

describe("guardedSave", () => {
  test("writes only when the status and updated_at are still the ones decided on", async () => {
    const t = task();
    await createTask(paths, t);
    const stale = { status: "running" as const, updated_at: "2026-11-30T00:00:00.000Z" };
    let r = await guardedSave(paths, t.id, stale, { status: "done" });
    expect(r).toEqual({ task: t, written: false });
    r = await guardedSave(paths, t.id, { status: "blocked", updated_at: t.updated_at }, { status: "done" });
    expect(r.written).toBe(false);
    r = await guardedSave(paths, t.id, t, { status: "done", held_running_since: undefined });
    expect(r.written).toBe(true);
    expect(loadTask(paths, t.id)?.value).toEqual({ ...t, status: "done", held_running_since: undefined });
  });
});
