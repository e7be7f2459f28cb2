// The state hooks of tmux soldiers (TMX-05): what `stateHooks` gives each harness, that its shell
// commands carry an odd vx path as one word through a real /bin/sh, and the Pi extension and
// OpenCode plugin loaded in-process with a fake vx: in order, deduplicated, never waited on.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { shellQuote, tomlString } from "../../src/harnesses/hook-shell";
import type { HookedLaunch } from "../../src/harnesses/types";
import { VxError } from "../../src/errors";
import { stateHooks } from "../../src/harnesses/soldier-hooks";
import { waitFor } from "../helpers";

const ID = "0123456789abcdef";
// A space, both quotes, a dollar, a backtick and a backslash: all must reach exec as they are.
const ODD = `vx dir 'q' "d" $HOME \`x\` \\b`;

let dir: string;
let vx: string;
let log: string;
let saved: string | undefined;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "vx-hooks-")));
  vx = join(dir, ODD, "vx");
  log = join(dir, "log");
  mkdirSync(join(dir, ODD));
  // Records each run; a `working` report waits while the gate file exists (a slow vx), so a later
  // report overtakes it unless serialized, and a harness that waited on it would hang.
  const gate = join(dir, "gate");
  writeFileSync(vx, `#!/bin/sh\n[ "$2" = working ] && while [ -e "${gate}" ]; do sleep 0.01; done\necho "$VX_HARNESS $VX_TASK_ID $*" >> "${log}"\n`, { mode: 0o755 });
  saved = process.env.VX_TASK_ID;
  process.env.VX_TASK_ID = ID;
});
afterEach(() => {
  if (saved === undefined) delete process.env.VX_TASK_ID;
  else process.env.VX_TASK_ID = saved;
  rmSync(dir, { recursive: true, force: true });
});

const hooksDir = () => join(dir, "state", "hooks", ID);
const runs = () => {
  try {
    return readFileSync(log, "utf8").trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

/** Runs a hook command the way Claude Code and Codex do (`/bin/sh -c`), with the launch's env. */
function viaShell(command: string, launch: HookedLaunch): number {
  return Bun.spawnSync(["/bin/sh", "-c", command], { env: { PATH: "/usr/bin:/bin", ...launch.env }, cwd: "/", stdin: "ignore" }).exitCode;
}

describe("stateHooks", () => {
  test("every harness gets VX_TASK_ID and VX_HARNESS, and files only under the hooks dir", () => {
    for (const harness of ["claude", "codex", "pi", "opencode"] as const) {
      const launch = stateHooks(harness, { vx, taskId: ID, hooksDir: hooksDir() });
      expect(launch.env).toMatchObject({ VX_TASK_ID: ID, VX_HARNESS: harness });
      for (const f of launch.files) expect(f.path.startsWith(`${hooksDir()}/`)).toBe(true);
      // A path in the args is one of the files (nothing else is named, nothing in a camp).
      for (const a of launch.args.filter((x) => x.startsWith("/"))) expect(launch.files.map((f) => f.path)).toContain(a);
    }
  });

  test("Claude Code: --settings names a file whose hooks report each state through the shell", () => {
    const launch = stateHooks("claude", { vx, taskId: ID, hooksDir: hooksDir() });
    const path = join(hooksDir(), "claude-settings.json");
    expect(launch.args).toEqual(["--settings", path]);
    expect(launch.files.map((f) => f.path)).toEqual([path]);
    const hooks = JSON.parse(launch.files[0]!.content).hooks as Record<string, { matcher?: string; hooks: { type: string; command: string; timeout: number }[] }[]>;
    const wants: Record<string, string> = {
      UserPromptSubmit: "working",
      PermissionRequest: "blocked",
      Notification: "blocked",
      PostToolUse: "working",
      Stop: "idle",
      StopFailure: "idle",
    };
    expect(Object.keys(hooks).sort()).toEqual(Object.keys(wants).sort());
    expect(hooks.Notification![0]!.matcher).toBe("permission_prompt");
    for (const [event, state] of Object.entries(wants)) {
      const [entry] = hooks[event]!;
      expect(entry!.hooks).toEqual([{ type: "command", command: `${shellQuote(vx)} report ${state}`, timeout: 10 }]);
      expect(viaShell(entry!.hooks[0]!.command, launch)).toBe(0);
    }
    // Each ran the odd vx itself with exactly the state as its argument.
    expect(runs()).toEqual(Object.values(wants).map((s) => `claude ${ID} report ${s}`));
  });

  test("Codex: hooks with the trust bypass, TOML that parses to commands the shell runs", () => {
    const launch = stateHooks("codex", { vx, taskId: ID, hooksDir: hooksDir() });
    expect(launch.files).toEqual([]);
    expect(launch.args[0]).toBe("--dangerously-bypass-hook-trust");
    const overrides = launch.args.slice(1);
    expect(overrides.filter((_, i) => i % 2 === 0).every((a) => a === "-c")).toBe(true);
    const events: string[] = [];
    for (const value of overrides.filter((_, i) => i % 2 === 1)) {
      const eq = value.indexOf("=");
      const key = value.slice(0, eq);
      expect(key).toMatch(/^hooks\.[A-Za-z]+$/);
      events.push(key.slice("hooks.".length));
      const parsed = Bun.TOML.parse(`v = ${value.slice(eq + 1)}`) as { v: { hooks: { type: string; command: string }[] }[] };
      const [hook] = parsed.v[0]!.hooks;
      expect(hook!.type).toBe("command");
      expect(viaShell(hook!.command, launch)).toBe(0);
    }
    // No notify: it also fires for Codex's title-generation turn.
    expect(events).toEqual(["UserPromptSubmit", "PermissionRequest", "PostToolUse", "Stop"]);
    expect(runs()).toEqual(["working", "blocked", "working", "idle"].map((s) => `codex ${ID} report ${s}`));
  });

  test("Pi: -e names the extension; OpenCode: OPENCODE_CONFIG_CONTENT names the plugin by file URL", () => {
    const pi = stateHooks("pi", { vx, taskId: ID, hooksDir: hooksDir() });
    expect(pi.args).toEqual(["-e", join(hooksDir(), "pi-state.ts")]);
    expect(pi.files.map((f) => f.path)).toEqual([join(hooksDir(), "pi-state.ts")]);
    const oc = stateHooks("opencode", { vx, taskId: ID, hooksDir: join(dir, "odd 'dir' %20") });
    expect(oc.args).toEqual([]);
    const config = JSON.parse(oc.env.OPENCODE_CONFIG_CONTENT!);
    expect(Object.keys(config)).toEqual(["plugin"]);
    expect(config.plugin.map((u: string) => fileURLToPath(u))).toEqual([join(dir, "odd 'dir' %20", "opencode-state.ts")]);
    expect(oc.files.map((f) => f.path)).toEqual([join(dir, "odd 'dir' %20", "opencode-state.ts")]);
  });

  test("a malformed task id or a relative path is refused", () => {
    expect(() => stateHooks("pi", { vx, taskId: "../x", hooksDir: hooksDir() })).toThrow(VxError);
    expect(() => stateHooks("pi", { vx: "vx", taskId: ID, hooksDir: hooksDir() })).toThrow("must be absolute");
    expect(() => stateHooks("pi", { vx, taskId: ID, hooksDir: "hooks" })).toThrow("must be absolute");
  });

  test("quoting: one shell word and a valid TOML string for any text", () => {
    for (const text of [ODD, "", "'", "''", "a\nb", "\u007f\u0001"]) {
      const out = Bun.spawnSync(["/bin/sh", "-c", `printf %s ${shellQuote(text)}`]).stdout.toString();
      expect(out).toBe(text);
      expect((Bun.TOML.parse(`v = ${tomlString(text)}`) as { v: string }).v).toBe(text);
    }
  });
});

let loads = 0;
/** Writes the launch's one file under a fresh name and imports it. */
async function load<T>(launch: HookedLaunch): Promise<T> {
  const file = join(dir, `loaded-${loads++}.ts`);
  writeFileSync(file, launch.files[0]!.content);
  return (await import(file)) as T;
}

/** Waits for the n-th run of the fake vx and returns every run so far. */
const nthRun = (n: number) => waitFor(() => (runs().length >= n ? runs() : undefined), 10_000, `report ${n}`);

describe("the Pi extension", () => {
  const piLaunch = (path = vx) => stateHooks("pi", { vx: path, taskId: ID, hooksDir: hooksDir() });

  test("agent_start reports working and agent_end idle, in that order, without Pi waiting", async () => {
    const handlers: Record<string, () => void> = {};
    const factory = (await load<{ default: (pi: unknown) => void }>(piLaunch())).default;
    factory({ on: (event: string, h: () => void) => (handlers[event] = h) });
    expect(Object.keys(handlers).sort()).toEqual(["agent_end", "agent_start"]);
    writeFileSync(join(dir, "gate"), "");
    handlers.agent_start!();
    handlers.agent_end!();
    // Back in Pi while the working report is still held: nothing was waited on.
    expect(runs()).toEqual([]);
    rmSync(join(dir, "gate"));
    // Idle waited for the slow working report, then landed second.
    expect(await nthRun(2)).toEqual([`pi ${ID} report working`, `pi ${ID} report idle`]);
  });

  test("a vx that cannot run is swallowed, and nothing holds the harness's process open", () => {
    const file = join(dir, "pi-state.ts");
    writeFileSync(file, piLaunch(join(dir, "missing", "vx")).files[0]!.content);
    const driver = join(dir, "driver.ts");
    writeFileSync(
      driver,
      `const handlers: Record<string, () => void> = {};\n(await import(${JSON.stringify(file)})).default({ on: (e: string, h: () => void) => (handlers[e] = h) });\nhandlers.agent_start!();\nhandlers.agent_end!();\n`,
    );
    const res = Bun.spawnSync([process.execPath, driver], { stdout: "pipe", stderr: "pipe", timeout: 30_000 });
    expect({ code: res.exitCode, stderr: res.stderr.toString() }).toEqual({ code: 0, stderr: "" });
  });
});

describe("the OpenCode plugin", () => {
  type Hooks = { event(input: { event: { type: string; properties?: Record<string, unknown> } }): Promise<void> };
  const status = (sessionID: string, type: string) => ({ type: "session.status", properties: { sessionID, status: { type } } });
  async function plugin(): Promise<(events: { type: string; properties?: Record<string, unknown> }[]) => Promise<void>> {
    const mod = await load<Record<string, () => Promise<Hooks>>>(stateHooks("opencode", { vx, taskId: ID, hooksDir: hooksDir() }));
    // OpenCode calls every export as a plugin.
    expect(Object.keys(mod)).toEqual(["VexillumState"]);
    const hooks = await mod.VexillumState!();
    return async (events) => {
      // Every event handled while a working report is held: OpenCode never waits on vx.
      writeFileSync(join(dir, "gate"), "");
      for (const event of events) await hooks.event({ event });
      rmSync(join(dir, "gate"));
    };
  }
  const reports = (...states: string[]) => states.map((s) => `opencode ${ID} report ${s}`);

  test("repeated busy is one working, a permission blocked until replied, a subagent's idle changes nothing", async () => {
    const send = await plugin();
    await send([status("root", "busy"), status("root", "busy"), status("child", "busy"), status("child", "idle"), status("root", "busy")]);
    expect(await nthRun(1)).toEqual(reports("working"));
    await send([{ type: "permission.asked", properties: { id: "per_1", sessionID: "root" } }, status("root", "busy")]);
    expect(await nthRun(2)).toEqual(reports("working", "blocked"));
    await send([{ type: "permission.replied", properties: { sessionID: "root", requestID: "per_1", reply: "once" } }, status("root", "busy")]);
    expect(await nthRun(3)).toEqual(reports("working", "blocked", "working"));
    await send([{ type: "message.updated", properties: { sessionID: "root" } }, status("root", "idle"), { type: "session.idle", properties: { sessionID: "root" } }]);
    expect(await nthRun(4)).toEqual(reports("working", "blocked", "working", "idle"));
  });

  test("states asked for while a report runs fold into the newest, still after it", async () => {
    const send = await plugin();
    await send([
      status("s1", "busy"),
      { type: "question.asked", properties: { id: "que_1", sessionID: "s1" } },
      { type: "question.replied", properties: { sessionID: "s1", requestID: "que_1", answers: [] } },
      status("s1", "idle"),
    ]);
    // working runs 300 ms; blocked and working again were superseded by idle before it ended.
    expect(await nthRun(2)).toEqual(reports("working", "idle"));
  });

  test("a question blocks too; a session that stops clears what it asked", async () => {
    const send = await plugin();
    await send([status("s1", "busy")]);
    await nthRun(1);
    await send([{ type: "question.asked", properties: { id: "que_1", sessionID: "s1" } }]);
    await nthRun(2);
    await send([status("s1", "idle")]); // aborted while asking
    expect(await nthRun(3)).toEqual(reports("working", "blocked", "idle"));
  });
});
