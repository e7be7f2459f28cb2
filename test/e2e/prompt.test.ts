// `vx prompt` end to end (CMD-PROMPT-01..03, T9, TSK-06).
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { followUpText } from "../../src/soldiers/prompt-text";
import { queueFailure, recordedPrompts, removeAgent, setAgentStatus, setPromptReaction } from "../fakes/herdr-control";
import { git } from "../helpers";
import { type Field, field, seedTask } from "./soldier-field";

const QUESTION = { question: "Postgres or SQLite?", options: [], asked_at: "2026-11-30T10:00:00.000Z", kind: "prose" as const };

function commitIn(camp: string, file = "NOTES.md"): void {
  writeFileSync(join(camp, file), "notes\n");
  git(camp, "add", file);
  git(camp, "commit", "-q", "-m", `add ${file}`);
}

async function refused(f: Field, args: string[]): Promise<string> {
  const r = await f.run(args);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  return r.stderr;
}

describe("vx prompt: refusals", () => {
  test("every status but done, shipped and unconfirmed, and a struck camp", async () => {
    await using f = await field();
    const running = await seedTask(f, { status: "running", agentStatus: "working" });
    const blocked = await seedTask(f, { status: "blocked", decision: QUESTION, agentStatus: "idle" });
    const interrupted = await seedTask(f, { status: "interrupted" });
    const failed = await seedTask(f, { status: "failed" });
    const struck = await seedTask(f, { status: "done", leased: false });
    const id = (s: { task: { id: string } }) => s.task.id;
    expect(await refused(f, ["prompt", id(running), "more"])).toBe(`vx: task ${id(running)} is already running - wait for it to settle\n`);
    expect(await refused(f, ["prompt", id(blocked), "more"])).toBe(
      `vx: task ${id(blocked)} is blocked on a question ("Postgres or SQLite?") - answer it with 'vx decide ${id(blocked)} <answer>', or if it was marked blocked by mistake clear it with 'vx decide ${id(blocked)} --dismiss'\n`,
    );
    expect(await refused(f, ["prompt", id(interrupted), "more"])).toBe(`vx: task ${id(interrupted)} is interrupted, its herdr pane is gone - use 'vx redispatch ${id(interrupted)}' instead\n`);
    expect(await refused(f, ["prompt", id(failed), "more"])).toBe(
      `vx: task ${id(failed)} is failed - vx could not start or prompt its soldier, so there is none to prompt; run it again with 'vx redispatch ${id(failed)}'\n`,
    );
    expect(await refused(f, ["prompt", id(struck), "more"])).toBe(`vx: task ${id(struck)}'s camp was already struck, its soldier is gone - dispatch a new one instead\n`);
    expect(recordedPrompts(f.fh)).toHaveLength(0);
    expect(f.task(id(blocked)).status).toBe("blocked");
  });

  test("usage errors and unknown tasks", async () => {
    await using f = await field();
    const { task } = await seedTask(f);
    let r = await f.run(["prompt", task.id, "  "]);
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith("vx: the prompt text is empty\nUsage: vx prompt <task-id> <text...>");
    r = await f.run(["prompt", task.id]);
    expect(r.stderr).toStartWith("vx: the prompt text is empty\n");
    r = await f.run(["prompt", "NOT-AN-ID", "hi"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith('vx: invalid task id "NOT-AN-ID": expected 16 lowercase hex characters, or a unique prefix of at least 4\n');
    r = await f.run(["prompt", "0123456789abcdef", "hi"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: no task 0123456789abcdef in this project - 'vx status' lists its tasks\n" });
  });

  test("prompt and decide texts have dispatch's size cap, checked before anything is sent", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "done" });
    const before = JSON.stringify(f.task(task.id));
    let r = await f.run(["prompt", task.id, "x".repeat(100_001)]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: the prompt is too long (100001 bytes, at most 100000) - write the long part to a file in the project and point the soldier at it\n" });
    // Four words (one argument may not pass 128 KiB), joined with spaces as the answer.
    r = await f.run(["decide", task.id, ...Array(4).fill("y".repeat(50_000))]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: "vx: the answer is too long (200003 bytes, at most 100000) - write the long part to a file in the project and point the soldier at it\n" });
    expect(recordedPrompts(f.fh)).toEqual([]);
    expect(JSON.stringify(f.task(task.id))).toBe(before);
  });
});

describe("vx prompt", () => {
  test("a done task goes back to running with the suffix, an amendment and the commander", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f, {
      status: "done",
      idle_unconfirmed_since: "2026-11-30T10:00:00.000Z",
      pause_seen_at: "2026-11-30T10:00:00.000Z",
      held_running_since: "2026-11-30T10:00:00.000Z",
      agent_not_found_since: "2026-11-30T10:00:00.000Z",
    });
    const r = await f.run(["prompt", task.id, "now", "add", "tests"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`status=running\nprompted task ${task.id}, now running\n`);
    expect(recordedPrompts(f.fh, name).map((p) => p.text)).toEqual([followUpText("now add tests")]);
    const t = f.task(task.id);
    expect(t).toMatchObject({ status: "running", prompt: "fix the login bug", commander_pane: f.ws.pane_id });
    for (const mark of ["idle_unconfirmed_since", "pause_seen_at", "held_running_since", "agent_not_found_since"] as const) {
      expect(t[mark]).toBeUndefined();
    }
    expect(t.updated_at > task.updated_at).toBe(true);
    expect(t.amendments).toEqual([{ text: "now add tests", at: t.amendments?.[0].at as string, source: "vx prompt" }]);
  });

  test("a soldier that commits within the probe settles done (a shipped task comes back done)", async () => {
    await using f = await field({ scale: "0.1" });
    const { task, name } = await seedTask(f, { status: "shipped" });
    setPromptReaction(f.fh, name, [
      { after_ms: 0, status: "working" },
      { after_ms: 100, status: "done", append_text: "⏺ Added the tests.\n" },
    ]);
    commitIn(task.camp_path as string);
    const r = await f.run(["prompt", task.id, "add tests"]);
    expect(r).toMatchObject({ code: 0, stdout: `status=done\nprompted task ${task.id}, now done\n` });
    expect(f.task(task.id).output).toEndWith("⏺ Added the tests.");
  });

  test("a soldier that asks a question within the probe settles blocked", async () => {
    await using f = await field({ scale: "0.1" });
    const { task, name } = await seedTask(f, { status: "unconfirmed" });
    setPromptReaction(f.fh, name, [
      { after_ms: 0, status: "working" },
      { after_ms: 100, status: "idle", append_text: "⏺ One thing first.\nneeds-decision: keep the old API or break it?\n" },
    ]);
    const r = await f.run(["prompt", task.id, "refactor the API"]);
    expect(r).toMatchObject({ code: 0, stdout: `status=blocked\nprompted task ${task.id}, now blocked\n` });
    expect(f.task(task.id).decision).toMatchObject({ question: "keep the old API or break it?", options: [], kind: "prose" });
  });

  test("amendments are trimmed, capped at 2000 characters, and only the newest 20 kept", async () => {
    await using f = await field();
    const old = Array.from({ length: 20 }, (_, i) => ({ text: `old ${i}`, at: "2026-11-30T10:00:00.000Z", source: "vx prompt" as const }));
    const { task } = await seedTask(f, { amendments: old });
    const long = `  ${"a".repeat(2500)}  `;
    expect((await f.run(["prompt", task.id, long])).code).toBe(0);
    const list = f.task(task.id).amendments ?? [];
    expect(list).toHaveLength(20);
    expect(list[0].text).toBe("old 1");
    expect(list[19].text).toBe(`${"a".repeat(2000)} [truncated]`);
  });
});

describe("vx prompt: delivery faults", () => {
  test("a gone pane marks the task interrupted", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f);
    removeAgent(f.fh, name);
    const r = await f.run(["prompt", task.id, "more"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`vx: task ${task.id}'s herdr pane is gone, so the prompt was not delivered - marked interrupted; use 'vx redispatch ${task.id}' instead\n`);
    const t = f.task(task.id);
    expect(t.status).toBe("interrupted");
    expect(t.output).toStartWith("earlier output\n\n[vexillum] this soldier's herdr pane was already gone");
  });

  test("a dialog on the pane leaves the task running for the sentinel", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f);
    setAgentStatus(f.fh, name, "blocked");
    const r = await f.run(["prompt", task.id, "more"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`vx: the soldier's pane is showing a dialog, so the prompt was not sent - the sentinel will record it as blocked; answer it with 'vx decide ${task.id} <answer>'\n`);
    expect(recordedPrompts(f.fh)).toHaveLength(0);
    expect(f.task(task.id).amendments).toBeUndefined();
  });

  test("any other delivery failure restores the previous status and updated_at", async () => {
    await using f = await field();
    const { task } = await seedTask(f, { status: "unconfirmed", pause_seen_at: "2026-11-30T10:00:00.000Z" });
    queueFailure(f.fh, "agent prompt", "agent_prompt_failed", { message: "could not write to the pane" });
    const r = await f.run(["prompt", task.id, "more"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`vx: could not deliver the prompt to task ${task.id}: herdr agent prompt: could not write to the pane (agent_prompt_failed) - it is unconfirmed again\n`);
    expect(f.task(task.id)).toEqual(task);
  });
});
