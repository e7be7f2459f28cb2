// `vx decide` end to end (CMD-DECIDE-01..05, T8, TSK-05/06).
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { followUpText } from "../../src/soldiers/prompt-text";
import type { Decision } from "../../src/state/schemas";
import { recordedPrompts, removeAgent, sentKeys, setPaneText, setPromptReaction, updateState } from "../fakes/herdr-control";
import { git } from "../helpers";
import { type Field, field, seedTask } from "./soldier-field";

const ASKED = "2026-11-30T10:00:00.000Z";
const OPTIONS = ["Postgres", "SQLite", "Type something.", "Chat about this"];
const MODAL: Decision = { question: "Which database should the service use?", options: OPTIONS, asked_at: ASKED, kind: "modal" };
const PROSE: Decision = { question: "keep the old API or break it?", options: [], asked_at: ASKED, kind: "prose" };

const DIALOG = [
  " ☐ Database",
  "",
  "Which database should the service use?",
  "",
  "❯ 1. Postgres",
  "     Robust, needs a server",
  "  2. SQLite",
  "     A file, no server",
  "  3. Type something.",
  "  4. Chat about this",
  "",
  "Enter to select · ↑/↓ to navigate · Esc to cancel",
].join("\n");

/** The dialog goes away (the agent is idle again) when `key` is pressed, as Claude Code's does. */
function answersOn(f: Field, name: string, key: string): void {
  updateState(f.fh, (s) => {
    const agent = s.panes.find((p) => p.agent?.name === name)?.agent;
    if (!agent) throw new Error(`no agent ${name}`);
    agent.accept_key = key;
  });
}

function commitIn(camp: string): void {
  writeFileSync(join(camp, "DB.md"), "postgres\n");
  git(camp, "add", "DB.md");
  git(camp, "commit", "-q", "-m", "pick postgres");
}

describe("vx decide: refusals", () => {
  test("only blocked tasks; usage errors", async () => {
    await using f = await field();
    const done = await seedTask(f, { status: "done" });
    const gone = await seedTask(f, { status: "interrupted" });
    const blocked = await seedTask(f, { status: "blocked", decision: PROSE });
    let r = await f.run(["decide", done.task.id, "yes"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `vx: task ${done.task.id} is done, not blocked - only a blocked task can be answered\n` });
    r = await f.run(["decide", gone.task.id, "--dismiss"]);
    expect(r.stderr).toBe(`vx: task ${gone.task.id} is interrupted, not blocked - its herdr pane is already gone, there's nothing left to answer; use 'vx redispatch ${gone.task.id}' instead\n`);
    r = await f.run(["decide", blocked.task.id, "--dismiss", "yes"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith("vx: --dismiss takes only the task id, there is no answer to send\nUsage: vx decide");
    r = await f.run(["decide", blocked.task.id]);
    expect(r.code).toBe(64);
    expect(r.stderr).toStartWith("vx: missing answer\n");
    expect(f.task(blocked.task.id).status).toBe("blocked");
    expect(sentKeys(f.fh)).toHaveLength(0);
    expect(recordedPrompts(f.fh)).toHaveLength(0);
  });
});

describe("vx decide: modal questions", () => {
  test("an answer by number is sent as that digit", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f, { status: "blocked", decision: MODAL, agentStatus: "blocked" });
    answersOn(f, name, "2");
    const r = await f.run(["decide", task.id, "2"]);
    expect(r).toMatchObject({ code: 0, stdout: `status=running\nanswered task ${task.id}, now running\n` });
    expect(sentKeys(f.fh, name).map((k) => k.keys)).toEqual([["2"]]);
    expect(recordedPrompts(f.fh)).toHaveLength(0);
    const t = f.task(task.id);
    expect(t.decision).toMatchObject({ ...MODAL, answer: "2" });
    expect(t.decision?.answered_at).toBeString();
    expect(t.amendments).toEqual([{ text: 'Asked "Which database should the service use?", the general answered: 2', at: t.decision?.answered_at as string, source: "vx decide" }]);
    expect(t.commander_pane).toBe(f.ws.pane_id);
  });

  test("a dialog only the prose fallback could parse (a permission prompt) is still answered by digit", async () => {
    await using f = await field();
    const fallback: Decision = { question: "Allow the command to run?", options: ["Yes", "No, and tell Claude what to do differently"], asked_at: ASKED, kind: "modal" };
    const { task, name } = await seedTask(f, { status: "blocked", decision: fallback, agentStatus: "blocked" });
    answersOn(f, name, "1");
    const r = await f.run(["decide", task.id, "1"]);
    expect(r.code).toBe(0);
    expect(sentKeys(f.fh, name).map((k) => k.keys)).toEqual([["1"]]);
    expect(recordedPrompts(f.fh)).toHaveLength(0);
  });

  test("an answer by option text is sent as its digit, and a commit makes it done", async () => {
    await using f = await field({ scale: "0.1" });
    const { task, name } = await seedTask(f, { status: "blocked", decision: MODAL, agentStatus: "blocked" });
    answersOn(f, name, "1");
    commitIn(task.camp_path as string);
    const r = await f.run(["decide", task.id, "Postgres"]);
    expect(r).toMatchObject({ code: 0, stdout: `status=done\nanswered task ${task.id}, now done\n` });
    expect(sentKeys(f.fh, name).map((k) => k.keys)).toEqual([["1"]]);
  });

  test("without stored options the dialog is read again from the screen", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f, { status: "blocked", decision: { ...MODAL, options: [] }, agentStatus: "blocked" });
    setPaneText(f.fh, name, DIALOG, "visible");
    answersOn(f, name, "2");
    const r = await f.run(["decide", task.id, "sqlite"]);
    expect(r.code).toBe(0);
    expect(sentKeys(f.fh, name).map((k) => k.keys)).toEqual([["2"]]);
  });

  test("an answer that is no option goes as text, which a showing dialog refuses", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f, { status: "blocked", decision: MODAL, agentStatus: "blocked" });
    const r = await f.run(["decide", task.id, "use", "MySQL"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `vx: the soldier's pane is showing a dialog, so the answer was not sent as text - answer with one of the dialog's options, by number or exact text (task ${task.id} is blocked again)\n`,
    );
    expect(sentKeys(f.fh, name)).toHaveLength(0);
    expect(f.task(task.id)).toEqual(task);
  });
});

describe("vx decide: prose questions", () => {
  test("the answer goes as a prompt with the suffix; a new question replaces the decision", async () => {
    await using f = await field({ scale: "0.1" });
    const { task, name } = await seedTask(f, { status: "blocked", decision: PROSE, agentStatus: "idle" });
    setPromptReaction(f.fh, name, [
      { after_ms: 0, status: "working" },
      { after_ms: 100, status: "idle", append_text: "⏺ Breaking it.\nneeds-decision: bump the major version now or later?\n" },
    ]);
    const r = await f.run(["decide", task.id, "break", "it"]);
    expect(r).toMatchObject({ code: 0, stdout: `status=blocked\nanswered task ${task.id}, now blocked\n` });
    expect(recordedPrompts(f.fh, name).map((p) => p.text)).toEqual([followUpText("break it")]);
    const t = f.task(task.id);
    expect(t.decision).toMatchObject({ question: "bump the major version now or later?", options: [], kind: "prose" });
    expect(t.decision?.answer).toBeUndefined();
    expect(t.amendments?.map((a) => a.text)).toEqual(['Asked "keep the old API or break it?", the general answered: break it']);
  });

  test("a soldier still working past the probe leaves the task running", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f, { status: "blocked", decision: PROSE, agentStatus: "idle" });
    const r = await f.run(["decide", task.id, "keep it"]);
    expect(r).toMatchObject({ code: 0, stdout: `status=running\nanswered task ${task.id}, now running\n` });
    expect(f.task(task.id).decision).toMatchObject({ ...PROSE, answer: "keep it" });
    expect(recordedPrompts(f.fh, name)).toHaveLength(1);
  });

  test("a pane that closes while the answer is delivered marks the task interrupted", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f, { status: "blocked", decision: PROSE, agentStatus: "idle" });
    setPromptReaction(f.fh, name, [{ after_ms: 0, remove_agent: true }]);
    const r = await f.run(["decide", task.id, "keep it"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const message = "[vexillum] this soldier's herdr pane was already gone by the time its answer could be delivered - marked interrupted. Use 'vx redispatch' instead.";
    expect(r.stderr).toContain(`vx: ${message}\n`);
    const t = f.task(task.id);
    expect(t.status).toBe("interrupted");
    expect(t.output).toBe(`earlier output\n\n${message}`);
  });
});

describe("vx decide --dismiss", () => {
  test("a working soldier: running, the decision dismissed, nothing sent", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f, { status: "blocked", decision: PROSE, agentStatus: "working" });
    const r = await f.run(["decide", task.id, "--dismiss"]);
    expect(r).toMatchObject({ code: 0, stdout: `status=running\ndismissed the question on task ${task.id}, now running\n` });
    const t = f.task(task.id);
    expect(t.decision).toMatchObject({ ...PROSE, dismissed: true });
    expect(t.decision?.answered_at).toBeString();
    expect(sentKeys(f.fh, name)).toHaveLength(0);
    expect(recordedPrompts(f.fh, name)).toHaveLength(0);
  });

  test("an idle soldier follows the quick-settle rules: the same question does not block again", async () => {
    await using f = await field();
    const { task, name } = await seedTask(f, { status: "blocked", decision: PROSE, agentStatus: "idle" });
    setPaneText(f.fh, name, `⏺ Done, but:\nneeds-decision: ${PROSE.question}\n`);
    commitIn(task.camp_path as string);
    const r = await f.run(["decide", task.id, "--dismiss"]);
    expect(r).toMatchObject({ code: 0, stdout: `status=done\ndismissed the question on task ${task.id}, now done\n` });
  });

  test("a pane really blocked is refused; a gone pane is interrupted", async () => {
    await using f = await field();
    const blocked = await seedTask(f, { status: "blocked", decision: MODAL, agentStatus: "blocked" });
    let r = await f.run(["decide", blocked.task.id, "--dismiss"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`vx: the soldier's pane is really blocked on a question - answer it with 'vx decide ${blocked.task.id} <answer>'\n`);
    expect(f.task(blocked.task.id)).toEqual(blocked.task);
    const gone = await seedTask(f, { status: "blocked", decision: PROSE, agentStatus: "idle" });
    removeAgent(f.fh, gone.name);
    r = await f.run(["decide", gone.task.id, "--dismiss"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`vx: task ${gone.task.id}'s herdr pane is gone - marked interrupted; use 'vx redispatch ${gone.task.id}' instead\n`);
    expect(f.task(gone.task.id)).toMatchObject({ status: "interrupted", decision: { dismissed: true } });
  });
});
