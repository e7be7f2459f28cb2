// The herdr client: exact argv per command, and how each kind of herdr answer is read (HRD-02/03).
// Most cases use the strict exec stub, told each exact argv; a few run the fake herdr for real, through PATH.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { HerdrError } from "../../src/backends/herdr/types";
import { CALL_GUARD_MS, createHerdrClient, type HerdrClient, herdrArgv, promptTextArg } from "../../src/backends/herdr/client";
import { MuxError } from "../../src/errors";
import { type ExecResult, realExec } from "../../src/exec";
import { type ExecStub, execStub } from "../fakes/exec";
import { addAgent, createWorkspace, installFakeHerdr, recordedPrompts } from "../fakes/herdr-control.ts";
import { sandbox } from "../helpers";

const ENV = { PATH: "/nowhere", HERDR_SOCKET_PATH: "/run/user/1/herdr.sock", HERDR_SESSION: "s1" };

/** A client whose exec must see exactly these calls, in this order, each answered with its reply. */
function client(...script: [string[], Partial<ExecResult>][]): { herdr: HerdrClient; stub: ExecStub } {
  const stub = execStub();
  for (const [argv, reply] of script) stub.expect(argv, reply);
  return { herdr: createHerdrClient({ exec: stub, env: ENV }), stub };
}

const AGENT = {
  agent: "claude",
  agent_status: "idle",
  cwd: "/camp",
  focused: false,
  interactive_ready: true,
  name: "vx-a",
  pane_id: "w1:p2",
  revision: 3,
  state_change_seq: 4,
  tab_id: "w1:t2",
  terminal_id: "term_1",
  workspace_id: "w1",
};
const ok = (result: object) => ({ stdout: `${JSON.stringify({ id: "cli:x:y", result })}\n` });
const LIST = ["herdr", "agent", "list"];
const STATUS = ["herdr", "status", "server", "--json"];
const TAB_CREATE = ["herdr", "tab", "create", "--workspace", "w1", "--cwd", "/c", "--label", "vx-a", "--no-focus"];

describe("argv builders", () => {
  const rows: { name: string; argv: string[]; want: string[] }[] = [
    { name: "version", argv: herdrArgv.version(), want: ["herdr", "--version"] },
    { name: "server status", argv: herdrArgv.serverStatus(), want: ["herdr", "status", "server", "--json"] },
    {
      name: "tab create",
      argv: herdrArgv.tabCreate({ workspace: "w1", cwd: "/camps/1", label: "vx-fix" }),
      want: ["herdr", "tab", "create", "--workspace", "w1", "--cwd", "/camps/1", "--label", "vx-fix", "--no-focus"],
    },
    {
      name: "agent start with args",
      argv: herdrArgv.agentStart("vx-fix", "claude", "w1:p2", ["--dangerously-skip-permissions", "--model", "opus"]),
      want: ["herdr", "agent", "start", "vx-fix", "--kind", "claude", "--pane", "w1:p2", "--", "--dangerously-skip-permissions", "--model", "opus"],
    },
    {
      name: "agent start without args",
      argv: herdrArgv.agentStart("vx-fix", "pi", "w1:p2", []),
      want: ["herdr", "agent", "start", "vx-fix", "--kind", "pi", "--pane", "w1:p2"],
    },
    { name: "agent get", argv: herdrArgv.agentGet("vx-fix"), want: ["herdr", "agent", "get", "vx-fix"] },
    { name: "agent list", argv: herdrArgv.agentList(), want: ["herdr", "agent", "list"] },
    {
      name: "agent prompt",
      argv: herdrArgv.agentPrompt("vx-fix", 'do it; rm -rf "$HOME"\nline two'),
      want: ["herdr", "agent", "prompt", "vx-fix", 'do it; rm -rf "$HOME"\nline two'],
    },
    {
      name: "agent prompt with wait",
      argv: herdrArgv.agentPrompt("w1:p2", "go", { waitTimeoutMs: 15000 }),
      want: ["herdr", "agent", "prompt", "w1:p2", "go", "--wait", "--timeout", "15000"],
    },
    {
      name: "agent prompt, scaled fractional wait rounds up",
      argv: herdrArgv.agentPrompt("a", "go", { waitTimeoutMs: 150.2 }),
      want: ["herdr", "agent", "prompt", "a", "go", "--wait", "--timeout", "151"],
    },
    {
      name: "agent prompt, leading dash gets a space",
      argv: herdrArgv.agentPrompt("a", "--wait is not an option here"),
      want: ["herdr", "agent", "prompt", "a", " --wait is not an option here"],
    },
    { name: "agent wait", argv: herdrArgv.agentWait("vx-fix", 500), want: ["herdr", "agent", "wait", "vx-fix", "--timeout", "500"] },
    {
      name: "agent read transcript",
      argv: herdrArgv.agentRead("vx-fix", "recent-unwrapped", 500),
      want: ["herdr", "agent", "read", "vx-fix", "--source", "recent-unwrapped", "--lines", "500"],
    },
    { name: "agent read visible", argv: herdrArgv.agentRead("vx-fix", "visible"), want: ["herdr", "agent", "read", "vx-fix", "--source", "visible"] },
    { name: "agent read default source", argv: herdrArgv.agentRead("vx-fix", undefined, 20), want: ["herdr", "agent", "read", "vx-fix", "--lines", "20"] },
    { name: "agent send-keys", argv: herdrArgv.agentSendKeys("vx-fix", ["down", "enter"]), want: ["herdr", "agent", "send-keys", "vx-fix", "down", "enter"] },
    { name: "tab close", argv: herdrArgv.tabClose("w1:t2"), want: ["herdr", "tab", "close", "w1:t2"] },
    { name: "pane close", argv: herdrArgv.paneClose("w1:p2"), want: ["herdr", "pane", "close", "w1:p2"] },
  ];
  test.each(rows)("$name", ({ argv, want }) => expect(argv).toEqual(want));

  test.each([
    ["-v fix it", " -v fix it"],
    ["- list item", " - list item"],
    ["fix -v", "fix -v"],
    [" -already spaced", " -already spaced"],
  ])("prompt text %p is passed as %p", (text, want) => expect(promptTextArg(text)).toBe(want));
});

describe("execution", () => {
  test("every call passes the caller's env unchanged and a timeout", async () => {
    const { herdr, stub } = client(
      [["herdr", "agent", "get", "vx-a"], ok({ type: "agent_info", agent: AGENT })],
      [["herdr", "agent", "send-keys", "vx-a", "1"], ok({ type: "ok" })],
      [["herdr", "agent", "wait", "vx-a", "--timeout", "2000"], ok({ type: "agent_info", agent: AGENT })],
      [["herdr", "agent", "prompt", "vx-a", "go", "--wait", "--timeout", "15000"], ok({ type: "agent_prompted", agent: AGENT })],
    );
    await herdr.agentGet("vx-a");
    await herdr.agentSendKeys("vx-a", ["1"]);
    await herdr.agentWait("vx-a", 2000);
    await herdr.agentPrompt("vx-a", "go", { waitTimeoutMs: 15000 });
    for (const c of stub.calls) expect(c.opts?.env).toBe(ENV);
    expect(stub.calls.map((c) => c.opts?.timeoutMs)).toEqual([CALL_GUARD_MS, CALL_GUARD_MS, CALL_GUARD_MS + 2000, CALL_GUARD_MS + 15000]);
  });

  test("the prompt text reaches exec as one argv element", async () => {
    const text = "a 'quoted' $(thing)\n---\nsecond block";
    const { herdr } = client([["herdr", "agent", "prompt", "vx-a", text], ok({ type: "agent_prompted", agent: AGENT })]);
    await herdr.agentPrompt("vx-a", text);
  });
});

describe("envelope parsing", () => {
  test("success: result read whatever the key order", async () => {
    const line = `{"result":{"type":"agent_info","agent":{"workspace_id":"w1","tab_id":"w1:t2","state_change_seq":7,"pane_id":"w1:p2","agent_status":"done","agent":"codex"}},"id":"cli:agent:get"}\n`;
    const { herdr } = client([["herdr", "agent", "get", "w1:p2"], { stdout: line }]);
    expect(await herdr.agentGet("w1:p2")).toEqual({
      agent: "codex",
      agent_status: "done",
      pane_id: "w1:p2",
      tab_id: "w1:t2",
      workspace_id: "w1",
      state_change_seq: 7,
      interactive_ready: false,
    });
  });

  test("agent list keeps unknown statuses and fills an absent one with an empty string", async () => {
    const { herdr } = client([LIST, ok({ type: "agent_list", agents: [AGENT, { ...AGENT, agent_status: "thinking" }, { ...AGENT, agent_status: undefined }] })]);
    expect((await herdr.agentList()).map((a) => a.agent_status)).toEqual(["idle", "thinking", ""]);
  });

  test("tab create returns the tab and root pane ids", async () => {
    const { herdr } = client([TAB_CREATE, ok({ type: "tab_created", root_pane: { pane_id: "w1:p3" }, tab: { tab_id: "w1:t3" } })]);
    expect(await herdr.tabCreate({ workspace: "w1", cwd: "/c", label: "vx-a" })).toEqual({ tabId: "w1:t3", paneId: "w1:p3" });
  });

  test("tab create without ids is an unexpected response", async () => {
    const body = `{"id":"cli:tab:create","result":{"tab":{"tab_id":"w1:t3"},"type":"tab_created"}}`;
    const { herdr } = client([TAB_CREATE, { stdout: `${body}\n` }]);
    const err = await herdr.tabCreate({ workspace: "w1", cwd: "/c", label: "vx-a" }).catch((e) => e);
    expect(err).toBeInstanceOf(MuxError);
    expect(err.message).toBe(`unexpected tab create response: ${body}`);
  });

  test("API error: JSON on stderr, exit 1", async () => {
    const { herdr } = client([["herdr", "agent", "get", "foo"], { code: 1, stderr: `{"error":{"code":"agent_not_found","message":"agent target foo not found"},"id":"cli:agent:get"}\n` }]);
    const err = await herdr.agentGet("foo").catch((e) => e);
    expect(err).toBeInstanceOf(HerdrError);
    expect(err).toBeInstanceOf(MuxError);
    expect(err.code).toBe("agent_not_found");
    expect(err.detail).toBe("agent target foo not found");
    expect(err.message).toBe("herdr agent get: agent target foo not found (agent_not_found)");
    expect(err.argv).toEqual(["herdr", "agent", "get", "foo"]);
  });

  test.each([
    { name: "exit 2 with plain text", reply: { code: 2, stderr: "unknown option: --json\n" }, code: "usage" },
    { name: "exit 1 with plain text", reply: { code: 1, stderr: "Error: no such option\n" }, code: "usage" },
    // The socket reset under the CLI while the server stops (herdr 0.8.2 prints the OS error).
    { name: "a connection reset", reply: { code: 1, stderr: 'Error: Os { code: 104, kind: ConnectionReset, message: "Connection reset by peer" }\n' }, code: "server_unavailable" },
    { name: "a connection refused", reply: { code: 1, stderr: "Error: connection refused\n" }, code: "server_unavailable" },
    { name: "a crash", reply: { code: 101, stderr: "thread 'main' panicked\n" }, code: "failed" },
    { name: "stdout that is not JSON", reply: { code: 0, stdout: "hello\n" }, code: "unparsable" },
    { name: "JSON without result", reply: { code: 0, stdout: `{"id":"cli:agent:list"}\n` }, code: "unparsable" },
    { name: "agents that are not a list", reply: ok({ type: "agent_list", agents: {} }), code: "unparsable" },
    { name: "an agent without ids", reply: ok({ type: "agent_list", agents: [{ agent_status: "idle" }] }), code: "unparsable" },
    { name: "two JSON lines", reply: { code: 0, stdout: `{"result":{}}\n{"result":{}}\n` }, code: "unparsable" },
    { name: "the guard timeout", reply: { code: 124 }, code: "exec_timeout" },
    { name: "exec could not find herdr", reply: { code: 127, stderr: "Executable not found" }, code: "herdr_missing" },
    { name: "exec could not start herdr (E2BIG)", reply: { code: 126, stderr: "E2BIG: argument list too long" }, code: "herdr_spawn_failed" },
  ])("$name → $code", async ({ reply, code }) => {
    const { herdr } = client([LIST, reply]);
    const err = await herdr.agentList().catch((e) => e);
    expect(err).toBeInstanceOf(HerdrError);
    expect(err.code).toBe(code);
  });

  test("a spawn failure says what failed, not that herdr is missing", async () => {
    const { herdr } = client([LIST, { code: 126, stderr: "E2BIG: argument list too long, posix_spawn 'herdr'" }]);
    const err = await herdr.agentList().catch((e) => e);
    expect(err.message).toBe("herdr agent list: could not run herdr: E2BIG: argument list too long, posix_spawn 'herdr'");
  });

  test("usage error message quotes herdr's line", async () => {
    const { herdr } = client([["herdr", "agent", "get", "x"], { code: 2, stderr: "usage: herdr agent get <target>\n" }]);
    const err = await herdr.agentGet("x").catch((e) => e);
    expect(err.message).toBe("herdr agent get: herdr rejected the call (exit 2): usage: herdr agent get <target>");
  });

  test("agent read returns raw text; send-keys and close accept an ok envelope", async () => {
    const read = client([["herdr", "agent", "read", "a", "--source", "visible"], { stdout: "line 1\nline 2" }]).herdr;
    expect(await read.agentRead("a", "visible")).toBe("line 1\nline 2");
    const okc = client(
      [["herdr", "agent", "send-keys", "a", "1"], ok({ type: "ok" })],
      [["herdr", "tab", "close", "w1:t1"], ok({ type: "ok" })],
      [["herdr", "pane", "close", "w1:p1"], ok({ type: "ok" })],
    ).herdr;
    await okc.agentSendKeys("a", ["1"]);
    await okc.tabClose("w1:t1");
    await okc.paneClose("w1:p1");
  });

  test("version and server status", async () => {
    expect(await client([["herdr", "--version"], { stdout: "herdr 0.9.3\n" }]).herdr.version()).toEqual({
      text: "herdr 0.9.3",
      version: { version: "0.9.3", major: 0, minor: 9, patch: 3, supported: true },
    });
    const down = `{"status":"not_running","running":false,"version":null,"protocol":null,"capabilities":null,"compatible":null,"socket":"/s","session":null,"restart_needed":false}`;
    expect(await client([STATUS, { stdout: down }]).herdr.serverStatus()).toEqual({
      status: "not_running",
      running: false,
      version: null,
      protocol: null,
      compatible: null,
      restart_needed: false,
      socket: "/s",
    });
    const err = await client([STATUS, { stdout: "status: running\n" }])
      .herdr.serverStatus()
      .catch((e) => e);
    expect(err.code).toBe("unparsable");
  });
});

describe("against the fake herdr", () => {
  test("missing binary → herdr_missing", async () => {
    using box = sandbox({ git: false });
    const herdr = createHerdrClient({ exec: realExec, env: { ...box.env, PATH: join(box.bin, "empty") } });
    const err = await herdr.agentList().catch((e) => e);
    expect(err).toBeInstanceOf(HerdrError);
    expect(err.code).toBe("herdr_missing");
  });

  test("a prompt starting with a dash is delivered as one text, not an option", async () => {
    using box = sandbox({ git: false });
    const fake = installFakeHerdr(box.bin);
    const herdr = createHerdrClient({ exec: realExec, env: { ...box.env, ...fake } });
    const { pane_id } = createWorkspace(fake, { cwd: box.project });
    addAgent(fake, pane_id, { name: "vx-dash" });
    await herdr.agentPrompt("vx-dash", "--help me with -v");
    expect(recordedPrompts(fake).map((p) => p.text)).toEqual([" --help me with -v"]);
  });

  test("a real API error and a real usage error", async () => {
    using box = sandbox({ git: false });
    const fake = installFakeHerdr(box.bin);
    const herdr = createHerdrClient({ exec: realExec, env: { ...box.env, ...fake } });
    expect((await herdr.agentGet("nobody").catch((e) => e)).code).toBe("agent_not_found");
    const usage = await herdr.agentSendKeys("nobody", []).catch((e) => e);
    expect(usage.code).toBe("usage");
  });
});
