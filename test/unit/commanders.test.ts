// Commander resolution and registry (CMDR-01..04) and doctor's commanders check (DOC-12).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentInfo } from "../../src/backends/agents";
import { registerAwaiter } from "../../src/awaiters/registry";
import { liveCommanders } from "../../src/commanders/check";
import { commandersCheck } from "../../src/doctor/commanders";
import { type Commander, commanderFields, noteCommander, recordCommander, resolveCommander } from "../../src/commanders/resolve";
import type { Exec, ExecResult } from "../../src/exec";
import { type ExecStub, execStub, psCall } from "../fakes/exec";
import { projectPaths, rootPaths } from "../../src/state/paths";
import { fakeClock, testDeps } from "../deps";
import { realExec } from "../../src/exec";

let base: string;
let root: string;
let project: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "vx-cmdr-")));
  root = join(base, "home", ".vexillum");
  mkdirSync(join(base, "home"));
  project = join(base, "app");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(project, "src"), { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const ok = (stdout: string): ExecResult => ({ code: 0, stdout, stderr: "" });

function agentJson(over: Record<string, unknown> = {}) {
  return { agent: "claude", agent_status: "working", pane_id: "w1:p1", tab_id: "w1:t1", workspace_id: "w1", state_change_seq: 1, cwd: join(project, "src"), ...over };
}

/**
 * A stub that must see `herdr agent get w1:p1` (answered with `agent`, or agent_not_found), then
 * one `ps` of each awaiter pid in `ps` (in any order: the registry is read in directory order),
 * each answered as a child of init running the command given; and no other call.
 */
function exec(opts: { agent?: Record<string, unknown>; ps?: Record<number, string> }): ExecStub {
  const stub = execStub();
  if (!opts.agent) {
    stub.expect(["herdr", "agent", "get", "w1:p1"], { code: 1, stderr: '{"error":{"code":"agent_not_found","message":"agent target w1:p1 not found"}}' });
  } else {
    stub.expect(["herdr", "agent", "get", "w1:p1"], ok(`${JSON.stringify({ id: "cli:agent:get", result: { type: "agent_info", agent: opts.agent } })}\n`));
  }
  return stub.expectAnyOrder(Object.entries(opts.ps ?? {}).map(([pid, command]) => psCall(Number(pid), `1 ${command}`)));
}

function deps(env: Record<string, string>, ex: Exec) {
  const d = testDeps({ cwd: project, env: { HOME: join(base, "home"), ...env } });
  d.exec = ex;
  return d;
}

function awaiter(pid: number, pane: string, projectPath: string): void {
  const dir = rootPaths(root).awaitersDir;
  mkdirSync(dir, { recursive: true });
  registerAwaiter(dir, { pid, owner_pid: 1, project_path: projectPath, project_key: "k", herdr_pane_id: pane, started_at: "2026-11-30T12:00:00.000Z" });
}

/** A commander in herdr pane `pane`, as the herdr backend finds one. */
function seat(pane: string, o: { project?: string; harness?: string; workspace?: string }): Commander {
  return { pane, project: o.project, harness: o.harness, entry: { herdr_pane_id: pane, herdr_workspace_id: o.workspace }, marksTasks: true };
}

describe("resolveCommander", () => {
  test("outside a herdr pane nothing is resolved and nothing is called", async () => {
    const none = execStub();
    expect(await resolveCommander(deps({}, none), root)).toBeUndefined();
    expect(commanderFields(undefined)).toEqual({});
    expect(none.calls).toEqual([]);
  });

  test("a live verified awaiter of the pane names the project", async () => {
    awaiter(4242, "w1:p1", "/elsewhere/queue-project");
    awaiter(4343, "w1:p9", "/elsewhere/other");
    const c = await resolveCommander(deps({ HERDR_PANE_ID: "w1:p1" }, exec({ agent: agentJson(), ps: { 4242: "/usr/local/bin/vx sentinel await", 4343: "vx sentinel await" } })), root);
    expect(c).toEqual(seat("w1:p1", { project: "/elsewhere/queue-project", harness: "claude", workspace: "w1" }));
  });

  test("an awaiter record whose pid runs something else is not trusted", async () => {
    awaiter(4242, "w1:p1", "/elsewhere/queue-project");
    const c = await resolveCommander(deps({ HERDR_PANE_ID: "w1:p1" }, exec({ agent: agentJson({ agent: "pi" }), ps: { 4242: "/usr/bin/python3 server.py" } })), root);
    expect(c).toEqual(seat("w1:p1", { project, harness: "pi", workspace: "w1" }));
  });

  test("otherwise the git toplevel of the cwd herdr reports; none without an agent or inside a camp", async () => {
    let c = await resolveCommander(deps({ HERDR_PANE_ID: "w1:p1", HERDR_WORKSPACE_ID: "w7" }, exec({})), root);
    expect(c).toEqual(seat("w1:p1", { workspace: "w7" }));
    const camp = join(root, "projects", "app-1", "camps", "1", "app");
    mkdirSync(join(camp, ".git"), { recursive: true });
    c = await resolveCommander(deps({ HERDR_PANE_ID: "w1:p1" }, exec({ agent: agentJson({ cwd: camp }) })), root);
    expect(c?.project).toBeUndefined();
    expect(commanderFields(c)).toEqual({ commander_project: undefined, commander_pane: "w1:p1" });
  });
});

describe("recordCommander", () => {
  test("writes the entry keyed by kind, keeping other entries and unknown fields", async () => {
    const paths = projectPaths(root, project);
    mkdirSync(paths.stateDir, { recursive: true });
    writeFileSync(
      paths.commandersFile,
      JSON.stringify({
        schema_version: 1,
        commanders: {
          claude: { herdr_pane_id: "w0:p0", project_path: project, registered_at: "2026-01-01T00:00:00.000Z", color: "red" },
          pi: { herdr_pane_id: "w2:p1", project_path: project, registered_at: "2026-01-01T00:00:00.000Z" },
        },
        zeta: true,
      }),
    );
    await recordCommander(root, seat("w1:p1", { project, harness: "claude", workspace: "w1" }), Date.parse("2026-11-30T12:00:00Z"));
    expect(JSON.parse(readFileSync(paths.commandersFile, "utf8"))).toEqual({
      schema_version: 1,
      commanders: {
        claude: { herdr_pane_id: "w1:p1", herdr_workspace_id: "w1", project_path: project, registered_at: "2026-11-30T12:00:00.000Z", color: "red" },
        pi: { herdr_pane_id: "w2:p1", project_path: project, registered_at: "2026-01-01T00:00:00.000Z" },
      },
      zeta: true,
    });
    expect(JSON.parse(readFileSync(join(paths.stateDir, "project.json"), "utf8")).path).toBe(project);
  });

  test("a Codex commander's entry records the thread it ran vx from and its CODEX_HOME (CMDR-09)", async () => {
    const c = await resolveCommander(deps({ HERDR_PANE_ID: "w1:p1", CODEX_THREAD_ID: "019a-thread", CODEX_HOME: "/h/.codex" }, exec({ agent: agentJson({ agent: "codex" }) })), root);
    expect(c).toMatchObject({ harness: "codex", codexThread: "019a-thread", codexHome: "/h/.codex" });
    await recordCommander(root, { ...c!, project }, Date.parse("2026-11-30T12:00:00Z"));
    const entry = JSON.parse(readFileSync(projectPaths(root, project).commandersFile, "utf8")).commanders.codex;
    expect(entry).toMatchObject({ codex_thread_id: "019a-thread", codex_home: "/h/.codex" });
    // Another kind never carries a Codex thread, even when the variable leaked into its environment.
    await recordCommander(root, { ...c!, project, harness: "claude" }, 0);
    const claude = JSON.parse(readFileSync(projectPaths(root, project).commandersFile, "utf8")).commanders.claude;
    expect(claude.codex_thread_id).toBeUndefined();
  });

  test("nothing is written without a project or a kind", async () => {
    await recordCommander(root, seat("w1:p1", { harness: "claude" }), 0);
    await recordCommander(root, seat("w1:p1", { project }), 0);
    expect(() => readFileSync(projectPaths(root, project).commandersFile)).toThrow();
  });

  test("noteCommander warns when the commander works in another project (CMDR-04)", async () => {
    const other = join(base, "other");
    mkdirSync(join(other, ".git"), { recursive: true });
    const d = deps({ HERDR_PANE_ID: "w1:p1" }, exec({ agent: agentJson({ cwd: other }) }));
    const fields = await noteCommander(d, root, projectPaths(root, project), { warnOtherProject: true });
    expect(fields).toEqual({ commander_project: other, commander_pane: "w1:p1" });
    expect(d.text().stderr).toBe(
      `vx: warning: this commander works in ${other}, not ${project} - the sentinel wakes it there, but run vx status, land, strike and prompt for this soldier from ${project}\n`,
    );
    const quiet = deps({ HERDR_PANE_ID: "w1:p1" }, exec({ agent: agentJson() }));
    await noteCommander(quiet, root, projectPaths(root, project), { warnOtherProject: true });
    expect(quiet.text().stderr).toBe("");
  });
});

describe("commandersCheck", () => {
  const info = (agent: string, pane: string): AgentInfo => ({ agent, agent_status: "idle", pane_id: pane, tab_id: "t", workspace_id: "w1", state_change_seq: 0, interactive_ready: true });

  async function check(agents: AgentInfo[] | Error) {
    const paths = projectPaths(root, project);
    return commandersCheck(
      paths,
      async () => {
        if (agents instanceof Error) throw agents;
        return agents;
      },
      { exec: realExec, clock: fakeClock(0), env: {} },
    );
  }

  test("none registered, none live, one live, two live", async () => {
    expect(await check([])).toEqual([{ status: "ok", name: "commanders", detail: "none registered" }]);
    await recordCommander(root, seat("w1:p1", { project, harness: "pi" }), 0);
    await recordCommander(root, seat("w1:p2", { project, harness: "claude" }), 0);
    expect(await check([info("claude", "w1:p1")])).toEqual([{ status: "ok", name: "commanders", detail: "none live (registered: claude, pi)" }]);
    expect(await check(new Error("server_not_running"))).toEqual([{ status: "ok", name: "commanders", detail: "none live (registered: claude, pi)" }]);
    expect(await check([info("claude", "w1:p2")])).toEqual([{ status: "ok", name: "commanders", detail: "claude live in pane w1:p2" }]);
    expect(await check([info("pi", "w1:p1"), info("claude", "w1:p2")])).toEqual([
      {
        status: "warn",
        name: "commanders share one wake queue",
        detail:
          "2 commanders are live in this project (claude, pi) and a wake is delivered once, to whichever asks first, so the others never hear of that soldier or that forum message; keep one commander per project (the others can catch up with vx status and vx forum inbox)",
      },
    ]);
    expect(await liveCommanders({ commanders: {} }, { exec: realExec, clock: fakeClock(0), env: {}, agents: [info("pi", "w1:p1")] })).toEqual([]);
  });

  test("a corrupt registry is a warning naming the file", async () => {
    const paths = projectPaths(root, project);
    mkdirSync(paths.stateDir, { recursive: true });
    writeFileSync(paths.commandersFile, "{");
    const [c] = await check([]);
    expect(c.status).toBe("warn");
    expect(c.detail).toStartWith(`${paths.commandersFile}: invalid JSON`);
  });
});
