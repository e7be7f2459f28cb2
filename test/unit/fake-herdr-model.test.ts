// The fake herdr's model of the real 0.8.2 server (docs/real-clients.md, "The server, compared with
// the fake"), checked fast here; test/e2e/herdr-contract.test.ts holds it to the real server.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  agentEnv,
  beginServerStop,
  createTab,
  createWorkspace,
  type FakeHerdrEnv,
  getAgent,
  holdCommand,
  installFakeHerdr,
  readState,
  setProgram,
  startServer,
  stopServer,
} from "../fakes/herdr-control.ts";
import { DETECT_APPEAR_MS } from "../fakes/herdr-program.ts";
import { SCRIPTED_CLAUDE, programDir, serverEnv } from "../herdr-contract-kit";
import { waitFor } from "../helpers";

let dir: string;
let env: FakeHerdrEnv;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fake-herdr-model-"));
  env = installFakeHerdr(join(dir, "bin"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function herdr(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([Bun.which("herdr", { PATH: env.PATH })!, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const errorCode = async (...args: string[]) => JSON.parse((await herdr(...args)).stderr).error.code as string;
const status = async (target: string) => JSON.parse((await herdr("agent", "get", target)).stdout).result.agent.agent_status as string;

/** A server modelled with the scripted claude on its PATH (and the given `--env` for a tab). */
function withProgram(): void {
  const prog = programDir(join(dir, "prog"), SCRIPTED_CLAUDE);
  rmSync(env.FAKE_HERDR_STATE);
  env = installFakeHerdr(join(dir, "bin"), { serverEnv: serverEnv(prog), startTimeoutMs: 3500 });
  setProgram(env, "claude", SCRIPTED_CLAUDE);
}

test("a stopping server answers server_unavailable, then a reset socket; a restart gives fresh shells with the same ids", async () => {
  const ws = createWorkspace(env, { cwd: dir });
  const tab = createTab(env, ws.workspace_id, { cwd: dir });
  await herdr("agent", "start", "vx-a", "--kind", "claude", "--pane", tab.pane_id);
  beginServerStop(env);
  expect(await errorCode("agent", "list")).toBe("server_unavailable");
  expect(await herdr("agent", "list")).toEqual({
    code: 1,
    stdout: "",
    stderr: 'Error: Os { code: 104, kind: ConnectionReset, message: "Connection reset by peer" }\n',
  });
  stopServer(env);
  const down = await herdr("agent", "list");
  expect(Object.keys(JSON.parse(down.stderr))).toEqual(["id", "error"]);
  const before = readState(env).panes.map((p) => [p.pane_id, p.terminal_id]);
  startServer(env);
  const after = readState(env).panes;
  expect(after.map((p) => p.pane_id)).toEqual(before.map(([id]) => id));
  expect(after.every((p, i) => p.terminal_id !== before[i]![1] && !p.agent && p.transcript === "")).toBe(true);
  expect(JSON.parse((await herdr("agent", "list")).stdout).result.agents).toEqual([]);
});

test("agent start names the agent at once, unknown and launch-pending until the program shows", async () => {
  const ws = createWorkspace(env, { cwd: dir });
  const tab = createTab(env, ws.workspace_id, { cwd: dir });
  const gate = holdCommand(env, "agent start");
  const start = herdr("agent", "start", "vx-a", "--kind", "claude", "--pane", tab.pane_id);
  await waitFor(() => getAgent(env, "vx-a"), 5000, "the pending agent");
  expect(getAgent(env, "vx-a")).toMatchObject({ agent_status: "unknown", launch_pending: true, state_change_seq: 0 });
  expect(getAgent(env, "vx-a")?.agent).toBeUndefined();
  gate.release();
  expect(JSON.parse((await start).stdout).result.agent).toMatchObject({ agent: "claude", agent_status: "idle", interactive_ready: true });
  expect(getAgent(env, "vx-a")?.launch_pending).toBeUndefined();
});

test("a program missing from the server's PATH: timeout, and the agent is gone", async () => {
  withProgram();
  const ws = createWorkspace(env, { cwd: dir });
  const r = await herdr("agent", "start", "vx-x", "--kind", "codex", "--pane", ws.pane_id);
  expect([r.code, JSON.parse(r.stderr).error]).toEqual([1, { code: "timeout", message: "timed out waiting for agent startup" }]);
  expect(await errorCode("agent", "get", "vx-x")).toBe("agent_not_found");
});

test("the program gets the server's environment and the tab's --env, not the caller's", async () => {
  withProgram();
  const ws = createWorkspace(env, { cwd: dir });
  const made = JSON.parse((await herdr("tab", "create", "--workspace", ws.workspace_id, "--cwd", dir, "--env", "VX_CONTRACT_TAB=tab")).stdout).result;
  const pane = made.root_pane.pane_id as string;
  process.env.VX_CONTRACT_MARK = "caller";
  try {
    await herdr("agent", "start", "vx-a", "--kind", "claude", "--pane", pane);
  } finally {
    delete process.env.VX_CONTRACT_MARK;
  }
  expect(agentEnv(env, "vx-a")).toMatchObject({ VX_CONTRACT_MARK: "server", VX_CONTRACT_TAB: "tab", HERDR_PANE_ID: pane, HERDR_ENV: "1" });
  expect((await herdr("agent", "read", "vx-a", "--source", "visible")).stdout).toContain("env mark=server tab=tab\n");
});

test("a turn's end reads done in a background tab, idle in the active one; each prompt line is a turn", async () => {
  withProgram();
  const ws = createWorkspace(env, { cwd: dir });
  const tab = createTab(env, ws.workspace_id, { cwd: dir });
  await herdr("agent", "start", "vx-f", "--kind", "claude", "--pane", ws.pane_id);
  await herdr("agent", "start", "vx-b", "--kind", "claude", "--pane", tab.pane_id);
  const answered = JSON.parse((await herdr("agent", "prompt", "vx-b", "mute first\nwork second")).stdout).result.agent;
  expect(answered.agent_status).toBe("idle");
  const seq = getAgent(env, "vx-f")!.state_change_seq;
  await herdr("agent", "prompt", "vx-f", "work f");
  await waitFor(async () => (await status("vx-b")) === "done", 10_000, "vx-b to finish");
  // Working, then idle again: two changes.
  await waitFor(async () => (await status("vx-f")) === "idle" && getAgent(env, "vx-f")!.state_change_seq >= seq + 2, 10_000, "vx-f to finish");
  expect((await herdr("agent", "read", "vx-b", "--source", "visible")).stdout).toContain("reply: work second\n");
  expect(getAgent(env, "vx-b")).toMatchObject({ terminal_title: "✳ scripted", terminal_title_stripped: "scripted" });
});

test("a harness typed into a pane is not found, then unknown, then its screen's status", async () => {
  const ws = createWorkspace(env, { cwd: dir });
  const t0 = Date.now();
  await herdr("pane", "run", ws.pane_id, "claude");
  const first = await errorCode("agent", "get", ws.pane_id);
  // Only a look within the first half second is sure to come before herdr finds it.
  if (Date.now() - t0 < DETECT_APPEAR_MS) expect(first).toBe("agent_not_found");
  await waitFor(async () => (await herdr("agent", "get", ws.pane_id)).code === 0, 5000, "herdr to find it");
  expect(await status(ws.pane_id)).toBe("unknown");
  await waitFor(async () => (await status(ws.pane_id)) === "idle", 10_000, "its status");
  expect(getAgent(env, ws.pane_id)?.interactive_ready).toBeUndefined();
});
