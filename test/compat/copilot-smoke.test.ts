// GitHub Copilot CLI (the sixth harness, HRN-02), real, in a real tmux pane 80 columns wide,
// against the local mock (mock-copilot.ts) with no GitHub login: a prompt turns into a `create`
// tool call that writes a file, and the state hooks of src/harnesses/copilot.ts, loaded from a
// plugin directory outside the project with --plugin-dir, report working, blocked around a
// permission dialog, and idle at the end of the turn. The hooks run a recording `vx` in the
// world's bin, so what they report is seen exactly as a soldier's `vx report` would get it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { COPILOT_SCREEN, COPILOT_SOLDIER_ENV, copilotSoldierArgs, copilotStateHooks, copilotUnsentText } from "../../src/harnesses/copilot";
import { git, sandbox, waitFor } from "../helpers";
import { COPILOT_MODEL, copilotEnv, seedCopilot } from "./copilot-setup";
import { harness } from "./harnesses";
import { type MockCopilot, createFile, isToolTurn, startMockCopilot, toolsOffered } from "./mock-copilot";
import { type Tmux, startTmux } from "./tmux";
import { privateTmp } from "./world";
import { processesRunning } from "./world";

const COLUMNS = 80;
const s = sandbox();
const base = dirname(s.home);
const reports = join(base, "reports.log");
// Paths with a space and a quote, as a user's may have: the hook commands must quote them.
const vxPath = join(base, "v x'd", "vx");
let exe: string;
let models: MockCopilot;
let tmux: Tmux;

/** A second git project, trusted in Copilot's config (the first is not: the soldier env trusts it). */
const trustedProject = join(base, "trusted");

beforeAll(async () => {
  exe = await harness("copilot");
  models = startMockCopilot();
  mkdirSync(trustedProject);
  git(trustedProject, "init", "-q", "-b", "main");
  seedCopilot(s.home, [trustedProject]);
  // The recording vx: one line per report, the task id from the environment as vx reads it.
  mkdirSync(dirname(vxPath));
  writeFileSync(vxPath, `#!/bin/sh\nprintf '%s %s\\n' "$VX_TASK_ID" "$*" >> '${reports}'\n`);
  chmodSync(vxPath, 0o755);
  const env = {
    ...s.env,
    ...copilotEnv(s.home, models.url),
    PATH: `${s.bin}:${dirname(exe)}:/usr/local/bin:/usr/bin:/bin`,
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    // What Copilot CLI puts in the temp dir goes with the sandbox, not into /tmp.
    TMPDIR: privateTmp(s.home),
  };
  tmux = startTmux(env, COLUMNS);
}, 600_000);

afterAll(() => {
  tmux?.close();
  models?.stop();
  for (const pid of processesRunning(base, true)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone with its pane.
    }
  }
  s[Symbol.dispose]();
});

const reportsOf = (id: string) =>
  (existsSync(reports) ? readFileSync(reports, "utf8") : "")
    .split("\n")
    .filter((l) => l.startsWith(`${id} `))
    .map((l) => l.slice(id.length + 1));

async function screenShows(pane: string, re: RegExp, timeoutMs = 90_000): Promise<string> {
  try {
    return await waitFor(() => (re.test(tmux.screen(pane)) ? tmux.screen(pane) : undefined), timeoutMs, `the screen to show ${re}`);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- screen ---\n${tmux.screen(pane)}`);
  }
}

/** Starts Copilot in `cwd` with the state plugin for task `id`; waits for its input box. */
async function launch(pane: string, id: string, cwd: string, soldier: boolean): Promise<void> {
  const hooksDir = join(base, "hooks d'ir", id);
  const hooks = copilotStateHooks(vxPath, hooksDir);
  for (const f of hooks.files) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.content);
  }
  const env = [`VX_TASK_ID=${id}`, ...(soldier ? Object.entries(COPILOT_SOLDIER_ENV).map(([k, v]) => `${k}=${v}`) : [])];
  const args = soldier ? copilotSoldierArgs(COPILOT_MODEL) : ["--model", COPILOT_MODEL];
  tmux.start(pane, ["env", ...env, exe, ...args, ...hooks.args], cwd, COLUMNS);
  const t0 = Date.now();
  await screenShows(pane, COPILOT_SCREEN.ready, 180_000);
  console.log(`compat: copilot start -> input box: ${Date.now() - t0} ms`);
}

/** Pastes a prompt as vx delivers one (TMX-02), submits it once it shows. */
async function submit(pane: string, prompt: string): Promise<void> {
  tmux.paste(pane, prompt);
  await screenShows(pane, new RegExp(prompt));
  expect(copilotUnsentText(tmux.screen(pane))).toBe(prompt);
  tmux.keys(pane, "Enter");
}

describe("GitHub Copilot CLI against the local mock", () => {
  test("a soldier turn writes a file through a tool call and reports working then idle", async () => {
    const id = "c0c0c0c0c0c0c0c0";
    const prompt = "write the greeting file";
    const target = join(s.project, "greeting.txt");
    models.respond((r) => (isToolTurn(r) ? { text: "greeting written" } : r.lastUser.includes(prompt) ? createFile(target, "hello from copilot\n") : undefined));
    await launch("soldier", id, s.project, true);
    // Trusted by the soldier's environment alone: the project is not in config.json.
    expect(tmux.screen("soldier")).not.toMatch(COPILOT_SCREEN.trust.text);
    await submit("soldier", prompt);
    await waitFor(() => reportsOf(id).includes("report idle"), 90_000, "the agentStop hook's idle report");
    expect(readFileSync(target, "utf8")).toBe("hello from copilot\n");
    expect(reportsOf(id)).toEqual(["report working", "report working", "report idle"]);
    const turns = models.turns();
    expect(turns.some(isToolTurn)).toBe(true);
    expect(toolsOffered(turns[0]!)).toContain("create");
    expect((turns[0]!.body as { model?: string }).model).toBe(COPILOT_MODEL);
    await screenShows("soldier", /greeting written/);
    expect(copilotUnsentText(tmux.screen("soldier"))).toBe("");
    // Nothing but chat completions: no GitHub login, token exchange or catalog call.
    expect(models.strays()).toEqual([]);
    // The camp stays clean: the hooks live outside it.
    expect(git(s.project, "status", "--porcelain").trim()).toBe("?? greeting.txt");
  }, 300_000);

  test("a permission dialog reports blocked, then working once answered, then idle", async () => {
    const id = "d0d0d0d0d0d0d0d0";
    const prompt = "write the guarded file";
    const target = join(trustedProject, "guarded.txt");
    models.respond((r) => (isToolTurn(r) ? { text: "guarded written" } : r.lastUser.includes(prompt) ? createFile(target, "after a yes\n") : undefined));
    await launch("asked", id, trustedProject, false);
    await submit("asked", prompt);
    await screenShows("asked", COPILOT_SCREEN.permission);
    await waitFor(() => reportsOf(id).includes("report blocked"), 30_000, "the permission notification's blocked report");
    expect(existsSync(target)).toBe(false);
    expect(reportsOf(id)).toEqual(["report working", "report blocked"]);
    tmux.keys("asked", "Enter");
    await waitFor(() => reportsOf(id).includes("report idle"), 90_000, "the idle report after the answered dialog");
    expect(reportsOf(id)).toEqual(["report working", "report blocked", "report working", "report idle"]);
    expect(readFileSync(target, "utf8")).toBe("after a yes\n");
  }, 300_000);
});
