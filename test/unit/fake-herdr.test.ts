// Tests of the fake herdr itself: real processes through a PATH symlink, so
// what is checked here is what vx will see.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  activeWaits,
  addAgent,
  agentArgv,
  callLog,
  callsOf,
  closeTab,
  configure,
  createWorkspace,
  getAgent,
  installFakeHerdr,
  paneInputs,
  queueFailure,
  readState,
  recordedPrompts,
  removeAgent,
  scheduleSteps,
  sentKeys,
  setAgentStatus,
  setPaneText,
  setPromptReaction,
  setProtocolMismatch,
  setVersion,
  startServer,
  stopServer,
  appendPaneText,
  type FakeHerdrEnv,
} from "../fakes/herdr-control.ts";
import { waitFor } from "../helpers";

let dir: string;
let env: FakeHerdrEnv;
let bin: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fake-herdr-"));
  env = installFakeHerdr(join(dir, "bin"));
  const found = Bun.which("herdr", { PATH: env.PATH });
  if (!found) throw new Error("herdr not on PATH after install");
  bin = found;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function herdr(...args: string[]): Promise<Run> {
  const proc = Bun.spawn([bin, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Success envelope: one line, exit 0, nothing on stderr. */
async function ok(...args: string[]): Promise<Record<string, any>> {
  const r = await herdr(...args);
  expect(r).toMatchObject({ code: 0, stderr: "" });
  expect(r.stdout.endsWith("\n") && r.stdout.indexOf("\n") === r.stdout.length - 1).toBe(true);
  const body = JSON.parse(r.stdout);
  expect(body.id).toBe(`cli:${args[0]}:${args[1]}`);
  return body.result;
}

/** API error: JSON on stderr, exit 1, nothing on stdout. */
async function apiError(...args: string[]): Promise<{ code: string; message: string }> {
  const r = await herdr(...args);
  expect(r).toMatchObject({ code: 1, stdout: "" });
  const body = JSON.parse(r.stderr);
  // The server's errors come key-sorted; the client's own (no server running) put the id first.
  expect(Object.keys(body)).toEqual(body.error.code === "server_not_running" ? ["id", "error"] : ["error", "id"]);
  return body.error;
}

async function usageError(...args: string[]): Promise<string> {
  const r = await herdr(...args);
  expect(r).toMatchObject({ code: 2, stdout: "" });
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(() => JSON.parse(r.stderr)).toThrow();
  return r.stderr.trim();
}

function expectSortedKeys(v: unknown): void {
  if (Array.isArray(v)) v.forEach(expectSortedKeys);
  else if (v && typeof v === "object") {
    const keys = Object.keys(v);
    expect(keys).toEqual([...keys].sort());
    for (const k of keys) expectSortedKeys((v as Record<string, unknown>)[k]);
  }
}

/** A workspace plus a tab with a named agent, the way vx sets one up. */
async function agentInTab(name = "vx-one", cwd = "/repo/camp"): Promise<Record<string, any>> {
  const ws = createWorkspace(env, { cwd: "/repo" });
  const tab = await ok("tab", "create", "--workspace", ws.workspace_id, "--cwd", cwd, "--label", name, "--no-focus");
  return ok("agent", "start", name, "--kind", "claude", "--pane", tab.root_pane.pane_id, "--", "--model", "opus");
}

describe("process contract", () => {
  test("version, status and the call log work through the PATH symlink", async () => {
    // By default the fake is the real herdr the tests run: 0.8.2, API protocol 20.
    expect(await herdr("--version")).toEqual({ code: 0, stdout: "herdr 0.8.2\n", stderr: "" });
    const st = JSON.parse((await herdr("status", "server", "--json")).stdout);
    expect(st).toMatchObject({ running: true, version: "0.8.2", protocol: 20, compatible: true });
    setVersion(env, "0.9.3");
    expect((await herdr("--version")).stdout).toBe("herdr 0.9.3\n");
    const log = callLog(env);
    expect(log.map((c) => c.argv)).toEqual([["--version"], ["status", "server", "--json"], ["--version"]]);
    expect(new Set(log.map((c) => c.pid)).size).toBe(3);
  });

  test("success envelopes are one sorted compact line with opaque never-reused ids", async () => {
    const made = await ok("workspace", "create", "--cwd", "/repo", "--label", "api");
    expect(made.type).toBe("workspace_created");
    expectSortedKeys(made);
    expect(made.root_pane).toMatchObject({ pane_id: "w1:p1", tab_id: "w1:t1", workspace_id: "w1", cwd: "/repo", agent_status: "unknown" });
    expect(made.root_pane.terminal_id).toMatch(/^term_[0-9a-f]+$/);
    const tab = await ok("tab", "create", "--workspace", "w1", "--cwd", "/repo/c", "--label", "vx-a", "--no-focus");
    expect(tab).toMatchObject({ type: "tab_created", tab: { tab_id: "w1:t2", label: "vx-a", focused: false }, root_pane: { pane_id: "w1:p2", cwd: "/repo/c" } });
    expect(await ok("tab", "close", "w1:t2")).toEqual({ type: "ok" });
    const again = await ok("tab", "create", "--workspace", "w1");
    expect([again.tab.tab_id, again.root_pane.pane_id]).toEqual(["w1:t3", "w1:p3"]);
    const split = await ok("pane", "split", "w1:p3", "--direction", "down", "--no-focus");
    expect(split.pane).toMatchObject({ pane_id: "w1:p4", tab_id: "w1:t3", cwd: "/repo" });
    expect((await ok("workspace", "list")).workspaces.map((w: any) => w.pane_count)).toEqual([3]);
  });

  test("usage errors are one plain line with exit 2; --session is stripped", async () => {
    expect(await usageError("agent", "list", "--json")).toBe("usage: herdr agent list");
    expect(await usageError("frobnicate")).toContain("unknown command");
    expect(await usageError("agent")).toContain("usage: herdr agent");
    await usageError("agent", "prompt", "x", "two", "words");
    await usageError("agent", "prompt", "x", "hi", "--until", "idle");
    await usageError("agent", "prompt", "x", "hi", "--timeout", "100");
    await usageError("pane", "split", "w1:p1");
    expect((await ok("agent", "list", "--session", "vxtest")).agents).toEqual([]);
    expect((await ok("agent", "list", "--session=vxtest")).agents).toEqual([]);
  });

  test("API errors go to stderr as JSON with exit 1", async () => {
    expect(await apiError("agent", "get", "ghost")).toEqual({ code: "agent_not_found", message: "agent target ghost not found" });
    expect((await apiError("tab", "close", "w1:t1")).code).toBe("tab_not_found");
    expect((await apiError("pane", "close", "w1:p1")).code).toBe("pane_not_found");
    const { pane_id } = createWorkspace(env);
    expect((await apiError("agent", "get", pane_id)).message).toBe(`agent target ${pane_id} not found`);
  });

  test("a stopped server fails socket commands but not --version or status", async () => {
    stopServer(env);
    expect((await apiError("agent", "list")).code).toBe("server_not_running");
    expect((await herdr("--version")).code).toBe(0);
    const st = await herdr("status", "server", "--json");
    expect(st.code).toBe(0);
    expect(JSON.parse(st.stdout)).toMatchObject({ running: false, status: "not_running", version: null, compatible: null });
    startServer(env);
    setProtocolMismatch(env, true);
    expect((await apiError("agent", "list")).code).toBe("protocol_mismatch");
    expect(JSON.parse((await herdr("status", "server", "--json")).stdout)).toMatchObject({ running: true, compatible: false });
  });

  test("eight concurrent invocations lose no update", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => ok("workspace", "create", "--cwd", "/r")));
    const ids = results.map((r) => r.workspace.workspace_id).sort();
    expect(new Set(ids).size).toBe(8);
    expect(readState(env).workspaces).toHaveLength(8);
    expect(new Set(callsOf(env, "workspace", "create").map((c) => c.pid)).size).toBe(8);
  });

  test("pane run, send-text and send-keys are silent and recorded", async () => {
    const { pane_id } = createWorkspace(env);
    for (const args of [
      ["run", pane_id, "echo", "hi"],
      ["send-text", pane_id, "abc"],
      ["send-keys", pane_id, "ctrl+c", "enter"],
    ]) {
      expect(await herdr("pane", ...args)).toEqual({ code: 0, stdout: "", stderr: "" });
    }
    expect(paneInputs(env, pane_id).map((i) => i.text ?? i.keys)).toEqual(["echo hi", "abc", ["ctrl+c", "enter"]]);
    expect((await herdr("pane", "read", pane_id)).stdout).toBe("$ echo hi\n");
    expect((await apiError("pane", "send-keys", pane_id, "nokey")).code).toBe("invalid_key");
  });
});

describe("agents", () => {
  test("agent start validates and records argv; cwd is the pane's", async () => {
    const started = await agentInTab("vx-one", "/repo/camp");
    expectSortedKeys(started);
    expect(started.argv).toEqual(["claude", "--model", "opus"]);
    expect(agentArgv(env, "vx-one")).toEqual(started.argv);
    expect(started.agent).toMatchObject({ name: "vx-one", agent: "claude", agent_status: "idle", interactive_ready: true, state_change_seq: 1 });
    expect((await ok("agent", "get", "vx-one")).agent.cwd).toBe("/repo/camp");
    const pane = started.agent.pane_id;
    expect((await apiError("agent", "start", "vx-two", "--kind", "claude", "--pane", pane)).code).toBe("agent_pane_busy");
    const free = (await ok("pane", "split", pane, "--direction", "right")).pane.pane_id;
    expect((await apiError("agent", "start", "vx-one", "--kind", "codex", "--pane", free)).code).toBe("agent_name_taken");
    expect((await apiError("agent", "start", "Bad", "--kind", "codex", "--pane", free)).code).toBe("invalid_agent_name");
    expect(await usageError("agent", "start", "ok", "--kind", "vim", "--pane", free)).toBe("unsupported interactive agent kind: vim");
    configure(env, { initialStatus: "unknown" });
    expect((await ok("agent", "start", "vx-two", "--kind", "codex", "--pane", free)).agent.agent_status).toBe("unknown");
    expect((await ok("agent", "list")).agents.map((a: any) => a.name)).toEqual(["vx-one", "vx-two"]);
  });

  test("prompt text is recorded byte-exact and echoed; the answer is the agent before it, then it works", async () => {
    await agentInTab();
    const text = `  line one\n"quoted" 'single' $(rm -rf /) \`tick\` ✻ ünïcode\n\ttab --wait`;
    const res = await ok("agent", "prompt", "vx-one", text);
    expect(res).toMatchObject({ type: "agent_prompted", agent: { agent_status: "idle", state_change_seq: 1 } });
    expect(getAgent(env, "vx-one")).toMatchObject({ agent_status: "working", state_change_seq: 2 });
    expect(recordedPrompts(env, "vx-one").map((p) => p.text)).toEqual([text]);
    // Each line of the prompt is typed as an input line of its own.
    expect((await herdr("agent", "read", "vx-one")).stdout).toContain(`> "quoted"`);
    expect((await herdr("agent", "read", "vx-one")).stdout).toContain("> \ttab --wait");
    // Three rows at the top of the pane: the bottom three rows are blank.
    expect((await herdr("agent", "read", "vx-one", "--lines", "3")).stdout).toBe("");
  });

  test("a blocked agent refuses prompts and records nothing", async () => {
    await agentInTab();
    setAgentStatus(env, "vx-one", "blocked");
    expect((await apiError("agent", "prompt", "vx-one", "hello")).code).toBe("agent_blocked");
    expect(recordedPrompts(env)).toEqual([]);
  });

  test("prompt --wait follows a scripted reaction", async () => {
    await agentInTab();
    setPromptReaction(env, "vx-one", [
      { after_ms: 0, status: "working" },
      { after_ms: 200, append_text: "answer 42\n", status: "done" },
    ]);
    const res = await ok("agent", "prompt", "vx-one", "question", "--wait", "--timeout", "5000");
    expect(res.agent).toMatchObject({ agent_status: "done", state_change_seq: 3 });
    expect((await herdr("agent", "read", "vx-one", "--source", "recent-unwrapped")).stdout).toEndWith("\nanswer 42");
  });

  test("prompt --wait stalls when nothing changes, times out for short waits, and sees an exit", async () => {
    configure(env, { stallMs: 300 });
    await agentInTab();
    setPromptReaction(env, "vx-one", [{ after_ms: 100, append_text: "thinking\n" }]);
    expect((await apiError("agent", "prompt", "vx-one", "a", "--wait", "--timeout", "5000")).code).toBe("agent_prompt_stalled");
    expect((await apiError("agent", "prompt", "vx-one", "b", "--wait", "--timeout", "250")).code).toBe("timeout");
    expect(recordedPrompts(env).map((p) => p.text)).toEqual(["a", "b"]);
    setPromptReaction(env, "vx-one", [
      { after_ms: 0, status: "working" },
      { after_ms: 150, remove_agent: true },
    ]);
    expect((await apiError("agent", "prompt", "vx-one", "c", "--wait")).code).toBe("agent_not_running");
  });

  test("agent wait returns at once on a match, times out, and ends when the agent goes", async () => {
    await agentInTab();
    expect((await ok("agent", "wait", "vx-one")).agent.agent_status).toBe("idle");
    setAgentStatus(env, "vx-one", "working");
    expect(await apiError("agent", "wait", "vx-one", "--timeout", "200")).toEqual({ code: "timeout", message: "timed out waiting for agent status" });
    scheduleSteps(env, "vx-one", [{ after_ms: 150, status: "done" }]);
    expect((await ok("agent", "wait", "vx-one", "--until", "done", "--timeout", "5000")).agent.agent_status).toBe("done");
    setAgentStatus(env, "vx-one", "working");
    const waiting = herdr("agent", "wait", "vx-one");
    await waitFor(() => activeWaits(env, "vx-one").length === 1);
    removeAgent(env, "vx-one");
    const r = await waiting;
    expect([r.code, JSON.parse(r.stderr).error.code]).toEqual([1, "agent_not_running"]);
  });

  test("agent read serves transcript tails and the visible screen as raw text", async () => {
    await agentInTab();
    setPaneText(env, "vx-one", Array.from({ length: 100 }, (_, i) => `l${i}`).join("\n") + "\n");
    expect((await herdr("agent", "read", "vx-one")).stdout.split("\n")).toHaveLength(81);
    expect((await herdr("agent", "read", "vx-one", "--lines", "2")).stdout).toBe("l98\nl99\n");
    expect((await herdr("agent", "read", "vx-one", "--source", "recent-unwrapped", "--lines", "2")).stdout).toBe("l98\nl99");
    appendPaneText(env, "vx-one", "\x1b[31mred\x1b[0m");
    expect((await herdr("agent", "read", "vx-one", "--lines", "1")).stdout).toBe("red\n");
    expect((await herdr("agent", "read", "vx-one", "--lines", "1", "--ansi")).stdout).toBe("\x1b[31mred\x1b[0m\n");
    expect((await herdr("agent", "read", "vx-one", "--source", "visible", "--lines", "1")).stdout).toBe("red\n");
    // A screen drawn from the top row of the 39-row pane: `--lines` counts rows from the bottom.
    setPaneText(env, "vx-one", "Do you want to proceed?\n❯ 1. Yes", "visible");
    expect((await herdr("agent", "read", "vx-one", "--source", "visible")).stdout).toBe("Do you want to proceed?\n❯ 1. Yes\n");
    expect((await herdr("agent", "read", "vx-one", "--source", "recent", "--lines", "20")).stdout).toBe("");
    expect((await herdr("agent", "read", "vx-one", "--source", "recent", "--lines", "39")).stdout).toBe("Do you want to proceed?\n❯ 1. Yes\n");
    queueFailure(env, "agent read", "agent_not_idle");
    expect((await apiError("agent", "read", "vx-one", "--lines", "500")).code).toBe("agent_not_idle");
    expect((await herdr("agent", "read", "vx-one", "--lines", "1")).code).toBe(0);
  });

  test("send-keys validates every key before sending any", async () => {
    await agentInTab();
    expect((await apiError("agent", "send-keys", "vx-one", "1", "enter", "hyperspace")).code).toBe("invalid_key");
    expect(sentKeys(env)).toEqual([]);
    expect(await ok("agent", "send-keys", "vx-one", "2", "Enter", "shift+tab", "f12", "esc")).toEqual({ type: "ok" });
    expect(sentKeys(env, "vx-one").map((k) => k.keys)).toEqual([["2", "Enter", "shift+tab", "f12", "esc"]]);
  });

  test("queued start failures: busy twice, then a trust dialog dismissed by Down and Enter", async () => {
    const ws = createWorkspace(env, { cwd: "/repo" });
    const start = ["agent", "start", "vx-t", "--kind", "claude", "--pane", ws.pane_id];
    queueFailure(env, "agent start", "agent_pane_busy", { count: 2 });
    expect((await apiError(...start)).code).toBe("agent_pane_busy");
    expect((await apiError(...start)).code).toBe("agent_pane_busy");
    queueFailure(env, "agent start", "agent_not_ready");
    expect((await apiError(...start)).code).toBe("agent_not_ready");
    expect((await herdr("agent", "read", "vx-t", "--source", "visible")).stdout).toContain(" ❯ No, exit\n   Yes, I trust this folder");
    expect(getAgent(env, "vx-t")).toMatchObject({ agent_status: "blocked", launch_pending: true });
    expect(getAgent(env, "vx-t")?.interactive_ready).toBeUndefined();
    expect((await apiError("agent", "prompt", "vx-t", "hi")).code).toBe("agent_blocked");
    await ok("agent", "send-keys", "vx-t", "Down");
    expect((await herdr("agent", "read", "vx-t", "--source", "visible")).stdout).toContain("   No, exit\n ❯ Yes, I trust this folder");
    await ok("agent", "send-keys", "vx-t", "Enter");
    expect((await ok("agent", "get", "vx-t")).agent).toMatchObject({ interactive_ready: true, agent_status: "idle" });
  });

  test("a queued prompt failure wins and, unless delivered, records nothing", async () => {
    await agentInTab();
    queueFailure(env, "agent prompt", "agent_prompt_stalled");
    queueFailure(env, "agent prompt", "agent_prompt_stalled", { deliver: true });
    expect((await apiError("agent", "prompt", "vx-one", "first", "--wait")).code).toBe("agent_prompt_stalled");
    expect((await apiError("agent", "prompt", "vx-one", "second", "--wait")).code).toBe("agent_prompt_stalled");
    expect(recordedPrompts(env).map((p) => p.text)).toEqual(["second"]);
    expect(getAgent(env, "vx-one")?.agent_status).toBe("working");
  });

  test("an exited agent leaves agent list but its pane stays a shell; closing removes agents", async () => {
    const started = await agentInTab();
    const pane = started.agent.pane_id;
    removeAgent(env, "vx-one");
    expect((await ok("agent", "list")).agents).toEqual([]);
    expect((await ok("pane", "get", pane)).pane).toMatchObject({ pane_id: pane, agent_status: "unknown" });
    expect((await apiError("agent", "get", "vx-one")).code).toBe("agent_not_found");
    addAgent(env, pane, { name: "vx-again", kind: "codex" });
    expect((await ok("agent", "get", pane)).agent.name).toBe("vx-again");
    expect(closeTab(env, started.agent.tab_id)).toBe(true);
    expect((await ok("agent", "list")).agents).toEqual([]);
    expect((await apiError("pane", "get", pane)).code).toBe("pane_not_found");
  });

  test("old herdr without the agent facade rejects agent start as usage", async () => {
    setVersion(env, "0.7.4");
    const { pane_id } = createWorkspace(env);
    await usageError("agent", "start", "vx-x", "--kind", "claude", "--pane", pane_id);
  });
});
