// Issue 15 item 8: a Codex commander under Codex's DEFAULT sandbox (no sandbox_mode set, no
// bypass flag). Its shell commands run under bubblewrap with the project's .git read-only and in a
// pid namespace of their own (pid 1 codex-linux-sandbox) that ends with the command. vx dispatch
// there must answer with exactly the one refusal line, and leave no task, camp, branch, commander
// record or sentinel file (no sentinel.pid holding a namespace pid) behind. codex.test.ts covers the
// working configuration (sandbox_mode = "danger-full-access").
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { addAgent, createWorkspace } from "../fakes/herdr-control";
import { git, waitFor } from "../helpers";
import { seedCodex, stopCodexDaemon } from "./codex-setup";
import type { LoggedRequest } from "./mock-models";
import { type World, say, screenShows, world } from "./world";

let w: World;
const PANE = "codex";

const lastItem = (r: LoggedRequest) => ((r.body as { input?: { type?: string; output?: unknown }[] })?.input ?? []).at(-1);

/** The output of the shell call the model made for the user turn `said`, once Codex returned it. */
const toolOutput = (said: string) =>
  w.models
    .turns()
    .filter((r) => r.lastUser.startsWith(said))
    .map(lastItem)
    .find((i) => i?.type === "function_call_output" && JSON.stringify(i.output).includes("exit="));

/** The refusal vx must print inside Codex's default sandbox, for this world. */
const refusal = () =>
  `vx: dispatch cannot work inside Codex's sandbox (${w.project}/.git is read-only here; its network is off, so herdr and tmux cannot be reached; a sentinel started here would die with this command: its own pid namespace, under codex-linux-sandbox) - set sandbox_mode = "danger-full-access" in ${w.env.CODEX_HOME}/config.toml (or start codex with --sandbox danger-full-access), or keep the sandbox with writable_roots = ["${w.project}/.git", "${w.root}"] and network_access = true under [sandbox_workspace_write] there and 'vx sentinel' started outside Codex`;

/** Nothing of a dispatch exists: no task, camp, branch, commander record or sentinel file. */
function untouched(): void {
  const tasksDir = join(w.stateDir, "tasks");
  expect(existsSync(tasksDir) ? readdirSync(tasksDir).filter((n) => n.endsWith(".json")) : []).toEqual([]);
  expect(existsSync(join(w.stateDir, "camps")) ? readdirSync(join(w.stateDir, "camps")) : []).toEqual([]);
  expect(git(w.project, "branch", "--list", "vexillum/*")).toBe("");
  expect(existsSync(join(w.stateDir, "commanders.json"))).toBe(false);
  for (const name of ["sentinel.pid", "sentinel.json", "sentinel.log"]) expect(existsSync(join(w.root, name))).toBe(false);
}

beforeAll(async () => {
  w = await world({
    harness: "codex",
    commander: "codex",
    prepare: (x) => {
      const ws = createWorkspace(x.env as never, { cwd: x.project });
      addAgent(x.env as never, ws.pane_id, { kind: "codex", status: "idle" });
      writeFileSync(join(x.home, ".profile"), `export PATH=${JSON.stringify(x.env.PATH)}\n`);
      // No sandbox_mode: Codex's default sandbox for a trusted project.
      return { ...seedCodex(x.home, x.project, x.models.url, { sandbox: [] }), HERDR_PANE_ID: ws.pane_id, HERDR_WORKSPACE_ID: ws.workspace_id };
    },
  });
});
afterAll(async () => {
  if (w) {
    stopCodexDaemon(w.exe, w.env);
    await w.close();
  }
});

describe("vx dispatch under Codex's default sandbox", () => {
  test("run through `codex sandbox` with the default workspace profile: exactly the refusal, nothing written", async () => {
    // `codex sandbox -P :workspace` is the profile the TUI's commands get by default
    // (CODEX_PERMISSION_PROFILE=:workspace in their environment).
    const proc = Bun.spawn([w.exe, "sandbox", "-P", ":workspace", "-C", w.project, "--", w.vxPath, "dispatch", "compat", "soldier", "task"], {
      cwd: w.project,
      env: w.env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(stdout).toBe("");
    // Codex may print its own warnings first; vx's is the one line.
    expect(stderr.split("\n").filter((l) => l.startsWith("vx: "))).toEqual([refusal()]);
    expect(code).toBe(1);
    untouched();
  }, 120_000);

  test("a Codex commander in the TUI gets exactly the refusal as its tool output, and nothing is half-written", async () => {
    w.tmux.start(PANE, [w.exe], w.project);
    await screenShows(w, PANE, /Ask Codex to do anything/, 90_000);
    w.models.respond((r) => {
      if (!r.lastUser.startsWith("dispatch a soldier")) return undefined;
      if (lastItem(r)?.type === "function_call_output") return { text: "refused" };
      return { tool: { name: "exec_command", input: { cmd: "VX_TIME_SCALE=0.05 vx dispatch compat soldier task; echo exit=$?" } } };
    });
    try {
      await say(w, PANE, "dispatch a soldier");
      const result = await waitFor(() => toolOutput("dispatch a soldier"), 90_000, "the dispatch's tool output");
      const output = typeof result.output === "string" ? result.output : JSON.stringify(result.output);
      console.log(`compat: codex default sandbox tool output:\n${output}`);
      const lines = output.split("\n");
      expect(lines.filter((l) => l.startsWith("vx: "))).toEqual([refusal()]);
      expect(lines).toContain("exit=1");
      untouched();
    } finally {
      w.models.respond(undefined);
    }
  }, 300_000);

  test("started with --sandbox danger-full-access (the advice's flag), the same dispatch works and sentinel.pid names the real sentinel", async () => {
    w.tmux.start("codex-full", [w.exe, "--sandbox", "danger-full-access"], w.project);
    await screenShows(w, "codex-full", /Ask Codex to do anything/, 90_000);
    w.models.respond((r) => {
      if (!r.lastUser.startsWith("dispatch with full access")) return undefined;
      if (lastItem(r)?.type === "function_call_output") return { text: "dispatched" };
      return { tool: { name: "exec_command", input: { cmd: "VX_TIME_SCALE=0.05 vx dispatch compat soldier task; echo exit=$?" } } };
    });
    try {
      await say(w, "codex-full", "dispatch with full access");
      const result = await waitFor(() => toolOutput("dispatch with full access"), 90_000, "the dispatch's tool output");
      const output = typeof result.output === "string" ? result.output : JSON.stringify(result.output);
      expect(output).not.toContain("cannot work inside");
      expect(output.split("\n")).toContain("exit=0");
      expect(output).toMatch(/^task_id=[0-9a-f]{16} /m);
      // The sentinel it started outlived the tool call, and its recorded pid is that process here.
      const pid = await waitFor(() => w.sentinelPid(), 20_000, "a live sentinel named by sentinel.pid");
      expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")).toContain("sentinel");
      expect(git(w.project, "branch", "--list", "vexillum/*")).toMatch(/vexillum\/[0-9a-f]{16}/);
    } finally {
      w.models.respond(undefined);
    }
  }, 300_000);

  test("the sandbox kept with the refusal's writable_roots and network_access = true, and a sentinel running outside: dispatch works", async () => {
    if (!w.sentinelPid()) {
      Bun.spawn([w.vxPath, "sentinel"], { cwd: w.home, env: w.env, stdout: "ignore", stderr: "ignore" });
      await waitFor(() => w.sentinelPid(), 20_000, "the sentinel");
    }
    const before = git(w.project, "branch", "--list", "vexillum/*").split("\n").filter(Boolean).length;
    // /tmp (where this world lives) is made read-only as a home directory is; the fake herdr's
    // state file is the only extra root, standing in for real herdr's socket.
    const herdrState = dirname(w.env.FAKE_HERDR_STATE as string);
    const roots = `sandbox_workspace_write.writable_roots=${JSON.stringify([`${w.project}/.git`, w.root, herdrState])}`;
    const argv = [w.exe, "-c", roots, "-c", "sandbox_workspace_write.network_access=true"];
    argv.push("-c", "sandbox_workspace_write.exclude_slash_tmp=true", "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true");
    w.tmux.start("codex-roots", argv, w.project);
    await screenShows(w, "codex-roots", /Ask Codex to do anything/, 90_000);
    w.models.respond((r) => {
      if (!r.lastUser.startsWith("dispatch with writable roots")) return undefined;
      if (lastItem(r)?.type === "function_call_output") return { text: "dispatched" };
      const probe = `touch ${JSON.stringify(`${w.home}/.probe`)} 2>/dev/null || echo home-read-only; `;
      return { tool: { name: "exec_command", input: { cmd: `${probe}VX_TIME_SCALE=0.05 vx dispatch compat soldier task; echo exit=$?` } } };
    });
    try {
      await say(w, "codex-roots", "dispatch with writable roots");
      const result = await waitFor(() => toolOutput("dispatch with writable roots"), 90_000, "the dispatch's tool output");
      const output = typeof result.output === "string" ? result.output : JSON.stringify(result.output);
      console.log(`compat: codex sandbox with writable roots, tool output:\n${output}`);
      expect(output).not.toContain("cannot work inside");
      // The home outside the roots was read-only, as it is for a real user.
      expect(output.split("\n")).toContain("home-read-only");
      expect(output.split("\n")).toContain("exit=0");
      expect(git(w.project, "branch", "--list", "vexillum/*").split("\n").filter(Boolean).length).toBe(before + 1);
    } finally {
      w.models.respond(undefined);
    }
  }, 300_000);
});
