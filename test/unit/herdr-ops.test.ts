// herdr behaviours with retries (HRD-05/06/07, SEN-06), driven against the fake herdr as real
// processes through PATH. vx waits on a fake clock: a retry's wait costs no real time, and each
// test can tell how long vx would have waited.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { agentName, fallbackName } from "../../src/backends/soldier-name";
import type { AgentInfo } from "../../src/backends/agents";
import { createHerdrClient } from "../../src/backends/herdr/client";
import { closePane, closeTab, findAgent, type HerdrOps, indexAgents, promptAgent, readTranscript, readVisible, startAgent } from "../../src/backends/herdr/ops";
import { realExec } from "../../src/exec";
import { scaled } from "../../src/time";
import {
  addAgent,
  agentArgv,
  callsOf,
  createTab,
  createWorkspace,
  type FakeHerdrEnv,
  getAgent,
  installFakeHerdr,
  queueFailure,
  recordedPrompts,
  removeAgent,
  sentKeys,
  setAgentStatus,
  setPaneText,
  setPromptReaction,
  setProtocolMismatch,
  stopServer,
} from "../fakes/herdr-control.ts";
import { fakeClock } from "../deps";
import { type Sandbox, sandbox } from "../helpers";

const NAME_RE = /^[a-z][a-z0-9_-]{0,31}$/;
const TASK = "0123abcd89abcdef";

let box: Sandbox;
let fake: FakeHerdrEnv;
let ops: HerdrOps;
let clock: ReturnType<typeof fakeClock>;
let ws: { workspace_id: string; tab_id: string; pane_id: string };

beforeEach(() => {
  box = sandbox({ git: false });
  fake = installFakeHerdr(box.bin);
  const env = { ...box.env, ...fake };
  clock = fakeClock();
  ops = { herdr: createHerdrClient({ exec: realExec, env }), clock, env };
  ws = createWorkspace(fake, { cwd: box.project });
});
afterEach(() => box[Symbol.dispose]());

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e) => e,
  );

describe("names", () => {
  test.each([
    { prompt: "Fix the login bug!", want: "vx-fix-the-login-bug" },
    { prompt: "  ---Hello___World  ", want: "vx-hello-world" },
    { prompt: "Implement the new caching layer for the API gateway", want: "vx-implement-the-new-caching-lay" },
    { prompt: `${"a".repeat(28)} bc`, want: `vx-${"a".repeat(28)}` },
    { prompt: "ÉCOLE été", want: "vx-cole-t" },
    { prompt: "123 go", want: "vx-123-go" },
    { prompt: "日本語のテキスト", want: "vx-0123abcd" },
    { prompt: "", want: "vx-0123abcd" },
  ])("agentName($prompt) = $want", ({ prompt, want }) => {
    const name = agentName(prompt, TASK);
    expect(name).toBe(want);
    expect(name).toMatch(NAME_RE);
  });

  test.each([
    { candidate: "vx-fix-the-login-bug", want: "vx-fix-the-login-bug-0123ab" },
    { candidate: "vx-implement-the-new-caching-lay", want: "vx-implement-the-new-cach-0123ab" },
    { candidate: `vx-${"a".repeat(21)}-bbbbbb`, want: `vx-${"a".repeat(21)}-0123ab` },
    { candidate: "vx-0123abcd", want: "vx-0123abcd-0123ab" },
  ])("fallbackName($candidate) = $want", ({ candidate, want }) => {
    const name = fallbackName(candidate, TASK);
    expect(name).toBe(want);
    expect(name.length).toBeLessThanOrEqual(32);
    expect(name).toMatch(NAME_RE);
  });
});

describe("startAgent", () => {
  const start = (name = "vx-fix") => startAgent(ops, { name, kind: "claude", pane: ws.pane_id, args: ["--dangerously-skip-permissions"], taskId: TASK });

  test("starts the harness with its args", async () => {
    expect(await start()).toBe("vx-fix");
    expect(agentArgv(fake, "vx-fix")).toEqual(["claude", "--dangerously-skip-permissions"]);
  });

  test("a busy pane is retried until it is free", async () => {
    queueFailure(fake, "agent start", "agent_pane_busy", { count: 5 });
    const t0 = clock.now();
    expect(await start()).toBe("vx-fix");
    expect(callsOf(fake, "agent", "start")).toHaveLength(6);
    expect(clock.now() - t0).toBe(5 * scaled("paneBusyStep", ops.env));
  });

  test("a pane still busy after 5 retries fails", async () => {
    queueFailure(fake, "agent start", "agent_pane_busy", { count: 6 });
    const t0 = clock.now();
    const err = await rejection(start());
    expect(clock.now() - t0).toBe(5 * scaled("paneBusyStep", ops.env));
    expect(err.code).toBe("agent_pane_busy");
    expect(callsOf(fake, "agent", "start")).toHaveLength(6);
    expect(getAgent(fake, "vx-fix")).toBeUndefined();
  });

  test("a taken name falls back once to the suffixed name", async () => {
    const other = createTab(fake, ws.workspace_id);
    addAgent(fake, other.pane_id, { name: "vx-fix" });
    const name = await start();
    expect(name).toBe("vx-fix-0123ab");
    expect(getAgent(fake, name)?.pane_id).toBe(ws.pane_id);
  });

  test("a fallback name that is taken too fails", async () => {
    queueFailure(fake, "agent start", "agent_name_taken", { count: 2 });
    expect((await rejection(start())).code).toBe("agent_name_taken");
    expect(callsOf(fake, "agent", "start").map((c) => c.argv[2])).toEqual(["vx-fix", "vx-fix-0123ab"]);
  });

  test("agent_not_ready (blocked on a start-up screen) is a started agent: nothing read or pressed here", async () => {
    // The launch's readiness wait (readiness.ts) reads that screen as shown and answers a
    // folder-trust dialog; the other start-up screens are never answered.
    queueFailure(fake, "agent start", "agent_not_ready");
    expect(await start()).toBe("vx-fix");
    expect(callsOf(fake, "agent", "read")).toEqual([]);
    expect(sentKeys(fake)).toEqual([]);
  });
});

describe("promptAgent", () => {
  const NAME = "vx-p";
  beforeEach(() => {
    addAgent(fake, ws.pane_id, { name: NAME, status: "idle" });
  });
  const promptCalls = () => callsOf(fake, "agent", "prompt");

  test("without a wait the prompt is sent", async () => {
    const out = await promptAgent(ops, NAME, "hello");
    expect(out.kind).toBe("sent");
    expect(recordedPrompts(fake).map((p) => p.text)).toEqual(["hello"]);
  });

  test("a wait settles on the agent's final status", async () => {
    setPromptReaction(fake, NAME, [
      { after_ms: 0, status: "working" },
      { after_ms: 100, status: "done" },
    ]);
    const out = await promptAgent(ops, NAME, "hello", { waitTimeoutMs: 10_000 });
    expect(out.kind).toBe("settled");
    expect(out.kind === "settled" && out.agent.agent_status).toBe("done");
  });

  test("a wait that ends on a dialog settles as blocked", async () => {
    setPromptReaction(fake, NAME, [
      { after_ms: 0, status: "working" },
      { after_ms: 50, status: "blocked" },
    ]);
    const out = await promptAgent(ops, NAME, "hello", { waitTimeoutMs: 10_000 });
    expect(out.kind === "settled" && out.agent.agent_status).toBe("blocked");
  });

  test("a probe that runs out is a timeout, not an error", async () => {
    const out = await promptAgent(ops, NAME, "hello", { waitTimeoutMs: 300 });
    expect(out).toEqual({ kind: "timeout" });
    expect(recordedPrompts(fake)).toHaveLength(1);
  });

  test("a real stall is retried and the prompt delivered exactly once", async () => {
    queueFailure(fake, "agent prompt", "agent_prompt_stalled", { count: 2 });
    const t0 = clock.now();
    const out = await promptAgent(ops, NAME, "hello");
    expect(clock.now() - t0).toBe(2 * scaled("promptStalledStep", ops.env));
    expect(out.kind).toBe("sent");
    expect(promptCalls()).toHaveLength(3);
    expect(recordedPrompts(fake)).toHaveLength(1);
  });

  test("a stall whose text reached the pane while herdr saw no state change is not resent (a slow harness's screen)", async () => {
    // As Gemini CLI on the real herdr: the prompt is in its pane, its status and sequence unchanged.
    setPromptReaction(fake, NAME, []);
    queueFailure(fake, "agent prompt", "agent_prompt_stalled", { deliver: true });
    const out = await promptAgent(ops, NAME, "run the long job (charlie)\n---\nmore");
    expect(out.kind).toBe("sent");
    expect(promptCalls()).toHaveLength(1);
    expect(recordedPrompts(fake)).toHaveLength(1);
  });

  test("a stall that outlasts 3 retries fails", async () => {
    queueFailure(fake, "agent prompt", "agent_prompt_stalled", { count: 4 });
    const t0 = clock.now();
    const err = await rejection(promptAgent(ops, NAME, "hello"));
    expect(clock.now() - t0).toBe(3 * scaled("promptStalledStep", ops.env));
    expect(err.code).toBe("agent_prompt_stalled");
    expect(promptCalls()).toHaveLength(4);
    expect(recordedPrompts(fake)).toHaveLength(0);
  });

  test("a false stall where the agent moved is not resent; the wait carries on", async () => {
    setPromptReaction(fake, NAME, [
      { after_ms: 0, status: "working" },
      { after_ms: 150, status: "done" },
    ]);
    queueFailure(fake, "agent prompt", "agent_prompt_stalled", { deliver: true });
    const out = await promptAgent(ops, NAME, "hello", { waitTimeoutMs: 10_000 });
    expect(out.kind === "settled" && out.agent.agent_status).toBe("done");
    expect(promptCalls()).toHaveLength(1);
    expect(callsOf(fake, "agent", "wait")).toHaveLength(1);
    expect(recordedPrompts(fake)).toHaveLength(1);
  });

  test("a false stall after a turn that already finished is not resent", async () => {
    setPromptReaction(fake, NAME, [
      { after_ms: 0, status: "working" },
      { after_ms: 0, status: "done" },
    ]);
    queueFailure(fake, "agent prompt", "agent_prompt_stalled", { deliver: true });
    const out = await promptAgent(ops, NAME, "hello", { waitTimeoutMs: 10_000 });
    expect(out.kind === "settled" && out.agent.agent_status).toBe("done");
    expect(recordedPrompts(fake)).toHaveLength(1);
  });

  test("a false stall without a wait counts as sent", async () => {
    queueFailure(fake, "agent prompt", "agent_prompt_stalled", { deliver: true });
    expect((await promptAgent(ops, NAME, "hello")).kind).toBe("sent");
    expect(promptCalls()).toHaveLength(1);
    expect(recordedPrompts(fake)).toHaveLength(1);
  });

  test("a dialog on screen blocks the prompt and nothing is sent", async () => {
    setAgentStatus(fake, NAME, "blocked");
    expect(await promptAgent(ops, NAME, "hello", { waitTimeoutMs: 1000 })).toEqual({ kind: "blocked" });
    expect(recordedPrompts(fake)).toHaveLength(0);
  });

  test("an agent already gone", async () => {
    removeAgent(fake, NAME);
    expect(await promptAgent(ops, NAME, "hello")).toEqual({ kind: "gone", code: "agent_not_found" });
  });

  test("an agent that exits during the wait", async () => {
    setPromptReaction(fake, NAME, [
      { after_ms: 0, status: "working" },
      { after_ms: 50, remove_agent: true },
    ]);
    expect(await promptAgent(ops, NAME, "hello", { waitTimeoutMs: 10_000 })).toEqual({ kind: "gone", code: "agent_not_running" });
  });

  test("other failures are thrown", async () => {
    queueFailure(fake, "agent prompt", "agent_prompt_failed");
    expect((await rejection(promptAgent(ops, NAME, "hello"))).code).toBe("agent_prompt_failed");
  });
});

describe("reads and closes", () => {
  const NAME = "vx-r";
  beforeEach(() => {
    addAgent(fake, ws.pane_id, { name: NAME });
  });

  test("transcript read: recent-unwrapped, 500 lines", async () => {
    setPaneText(fake, NAME, "line one\nline two\n");
    expect(await readTranscript(ops, NAME)).toBe("line one\nline two");
    expect(callsOf(fake, "agent", "read")[0]!.argv).toEqual(["agent", "read", NAME, "--source", "recent-unwrapped", "--lines", "500"]);
  });

  test("visible read: the whole rendered screen", async () => {
    setPaneText(fake, NAME, "☐ Pick\n1. a\n2. b", "visible");
    expect(await readVisible(ops, NAME)).toBe("☐ Pick\n1. a\n2. b\n");
    expect(callsOf(fake, "agent", "read")[0]!.argv).toEqual(["agent", "read", NAME, "--source", "visible"]);
  });

  test("agent_not_idle and a gone agent are unreadable", async () => {
    queueFailure(fake, "agent read", "agent_not_idle");
    expect(await readTranscript(ops, NAME)).toBeUndefined();
    removeAgent(fake, NAME);
    expect(await readVisible(ops, NAME)).toBeUndefined();
  });

  test("a stopped server is an error, not an unreadable pane", async () => {
    stopServer(fake);
    expect((await rejection(readTranscript(ops, NAME))).code).toBe("server_not_running");
  });

  test("closing a tab or pane that is already gone counts as closed", async () => {
    const tab = createTab(fake, ws.workspace_id);
    expect(await closeTab(ops, tab.tab_id)).toBe(true);
    expect(await closeTab(ops, tab.tab_id)).toBe(false);
    const other = createTab(fake, ws.workspace_id);
    expect(await closePane(ops, other.pane_id)).toBe(true);
    expect(await closePane(ops, other.pane_id)).toBe(false);
  });

  test("a stopped server killed every pane: closing counts as done", async () => {
    stopServer(fake);
    expect(await closeTab(ops, ws.tab_id)).toBe(false);
  });

  test("a server that is stopping takes every pane with it: closing counts as done", async () => {
    // The real 0.8.2 answers server_unavailable while it stops (docs/real-clients.md).
    queueFailure(fake, "tab close", "server_unavailable");
    queueFailure(fake, "pane close", "server_unavailable");
    expect(await closeTab(ops, ws.tab_id)).toBe(false);
    expect(await closePane(ops, ws.pane_id)).toBe(false);
  });

  test("other close failures are thrown", async () => {
    setProtocolMismatch(fake, true);
    expect((await rejection(closeTab(ops, ws.tab_id))).code).toBe("protocol_mismatch");
  });
});

describe("findAgent", () => {
  const agent = (o: Partial<AgentInfo>): AgentInfo => ({
    agent_status: "idle",
    pane_id: "w1:p1",
    tab_id: "w1:t1",
    workspace_id: "w1",
    state_change_seq: 0,
    interactive_ready: true,
    ...o,
  });
  const A = agent({ name: "vx-a", agent: "claude", pane_id: "w1:p1" });
  const B = agent({ agent: "codex", pane_id: "w1:p2" });
  const C = agent({ agent: "claude", pane_id: "w1:p3" });
  // Later twins of A and C (same name; same pane and kind) and another kind sharing C's pane: the first listed wins.
  const A2 = agent({ name: "vx-a", agent: "codex", pane_id: "w1:p4" });
  const C2 = agent({ name: "vx-c2", agent: "claude", pane_id: "w1:p3" });
  const D = agent({ agent: "codex", pane_id: "w1:p3" });
  const list = [A, B, C, A2, C2, D];

  test.each([
    { name: "by name", task: { herdr_agent_name: "vx-a", herdr_pane_id: "w1:p3", harness: "claude" }, want: A },
    { name: "name gone, pane and kind match", task: { herdr_agent_name: "vx-gone", herdr_pane_id: "w1:p2", harness: "codex" }, want: B },
    { name: "no name recorded", task: { herdr_pane_id: "w1:p3", harness: "claude" }, want: C },
    { name: "pane hosts another kind", task: { herdr_agent_name: "vx-gone", herdr_pane_id: "w1:p2", harness: "claude" }, want: undefined },
    { name: "pane not listed", task: { herdr_pane_id: "w1:p9", harness: "claude" }, want: undefined },
    { name: "no harness to match the pane against", task: { herdr_pane_id: "w1:p3" }, want: undefined },
    { name: "nothing recorded", task: {}, want: undefined },
    { name: "a name listed twice: the first", task: { herdr_agent_name: "vx-a" }, want: A },
    { name: "a pane and kind listed twice: the first", task: { herdr_pane_id: "w1:p3", harness: "claude" }, want: C },
    { name: "a pane hosting two kinds: the harness's", task: { herdr_agent_name: "vx-gone", herdr_pane_id: "w1:p3", harness: "codex" }, want: D },
    { name: "an empty name recorded: by pane", task: { herdr_agent_name: "", herdr_pane_id: "w1:p2", harness: "codex" }, want: B },
  ])("$name", ({ task, want }) => expect(findAgent(indexAgents(list), task)).toBe(want));
});
