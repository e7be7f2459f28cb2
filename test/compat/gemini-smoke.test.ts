// The real Gemini CLI (issue 16 item 2, HRN-02) in a real tmux pane of a normal width, against the
// mock Gemini API: it starts with no dialog from a private home, takes a pasted prompt, answers
// the mock's tool calls (a file write behind its confirmation dialog, a shell command without one
// under HRD-04's approval mode), and the state hooks of a soldier's private Gemini home (the
// draft harness module's `soldierHome`, all outside the camp) run their command with the task's
// environment at each step, ending idle after the turn.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DECISION_RE, READY_RE, soldierArgs } from "../../src/harnesses/gemini";
import { type Sandbox, git, sandbox, waitFor, writeExecutable } from "../helpers";
import { GEMINI_MODEL, geminiEnv, seedGemini, writeSoldierHome } from "./gemini-setup";
import { harness } from "./harnesses";
import type { LoggedRequest, MockModels } from "./mock-models";
import { isFunctionResult, startMockGemini } from "./mock-gemini";
import { type Tmux, startTmux } from "./tmux";
import { privateTmp } from "./world";

const COLUMNS = 100;
let s: Sandbox;
let models: MockModels;
let tmux: Tmux;
let exe: string;

beforeAll(async () => {
  exe = await harness("gemini");
  s = sandbox();
  models = startMockGemini();
  seedGemini(s.home);
  Object.assign(s.env, geminiEnv(models.url), {
    PATH: `${dirname(exe)}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    // Its node-compile-cache and gemini-shell-* dirs go with the sandbox, not into /tmp.
    TMPDIR: privateTmp(s.home),
  });
  tmux = startTmux(s.env, COLUMNS);
});
afterAll(() => {
  tmux?.close();
  models?.stop();
  s?.[Symbol.dispose]();
});

type Record = { args: string; taskId: string; harness: string; event: string };

/** A stand-in for vx (in a dir whose name holds a space and a quote) that records each call. */
function recorder(name: string): { path: string; calls(): Record[] } {
  const log = join(s.home, `${name}.calls`);
  const path = join(s.home, "vx bin'dir", name, "vx");
  mkdirSync(dirname(path), { recursive: true });
  // One write per call, so a reader never sees half a line.
  writeExecutable(path, `#!/bin/sh\nin=$(tr -d '\\n')\nprintf '%s\\t%s\\t%s\\t%s\\n' "$*" "$VX_TASK_ID" "$VX_HARNESS" "$in" >> '${log}'\n`);
  return {
    path,
    calls: () => {
      if (!existsSync(log)) return [];
      return readFileSync(log, "utf8")
        .split("\n")
        .slice(0, -1)
        .map((line) => {
          const [args, taskId, harness, stdin] = line.split("\t") as [string, string, string, string];
          return { args, taskId, harness, event: (JSON.parse(stdin) as { hook_event_name: string }).hook_event_name };
        });
    },
  };
}

async function screenShows(pane: string, re: RegExp, timeoutMs = 120_000): Promise<string> {
  try {
    return await waitFor(
      () => {
        const screen = tmux.screen(pane);
        return re.test(screen) ? screen : undefined;
      },
      timeoutMs,
      `the screen to show ${re}`,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- screen ---\n${tmux.screen(pane)}`);
  }
}

/** A camp-like git checkout and the CLI started in it with a soldier's private Gemini home. */
async function startGemini(name: string, args: string[]) {
  const camp = join(s.home, "..", `camp-${name}`);
  mkdirSync(camp);
  git(camp, "init", "-q", "-b", "main");
  const taskId = `${name.padEnd(8, "0")}00000000`.slice(0, 16);
  const vx = recorder(name);
  const env = writeSoldierHome(s.home, { vx: vx.path, taskId, hooksDir: join(s.home, "hooks d'ir", taskId) });
  tmux.start(name, ["env", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), exe, ...args], camp);
  await screenShows(name, READY_RE);
  // The input box shows before the session is initialised; SessionStart says it is.
  await waitFor(() => vx.calls().some((c) => c.event === "SessionStart"), 60_000, "the SessionStart hook");
  return { camp, taskId, vx };
}

/**
 * Pastes the prompt as one message, submits it once it shows, and returns the request it made.
 * An Enter soon after the paste was seen lost once the session had initialised (the prompt stays
 * in the input box), so Enter goes again every 5 s while the prompt still sits there and no
 * request came; how many were needed is printed.
 */
async function submit(pane: string, prompt: string): Promise<LoggedRequest> {
  tmux.paste(pane, prompt);
  await screenShows(pane, new RegExp(prompt));
  tmux.keys(pane, "Enter");
  let enters = 1;
  let pressed = Date.now();
  // The box starts with `>`, or `*` in YOLO mode.
  const inBox = new RegExp(`^ [>*] ${prompt}\\s*$`, "m");
  try {
    const req = await waitFor(
      () => {
        const found = models.turns().find((r) => r.lastUser.includes(prompt));
        if (found) return found;
        if (Date.now() - pressed >= 5000 && inBox.test(tmux.screen(pane))) {
          tmux.keys(pane, "Enter");
          enters++;
          pressed = Date.now();
        }
        return undefined;
      },
      90_000,
      `the model request for "${prompt}"`,
    );
    console.log(`compat: gemini "${prompt}" was submitted after ${enters} Enter(s)`);
    return req;
  } catch (err) {
    throw new Error(`${(err as Error).message} (${enters} Enters)\n--- screen ---\n${tmux.screen(pane)}`);
  }
}

const campStatus = (camp: string) => git(camp, "status", "--porcelain", "--untracked-files=all", "--ignored");

describe(`Gemini CLI in a ${COLUMNS}-column tmux pane against the mock Gemini API`, () => {
  test("a write_file call waits at its dialog (blocked), runs once allowed, and the turn ends idle", async () => {
    const g = await startGemini("write", ["--skip-trust", "--model", GEMINI_MODEL]);
    expect(campStatus(g.camp)).toBe("");
    models.respond((r) =>
      isFunctionResult(r)
        ? { text: "the file is written" }
        : r.lastUser.includes("write the greeting")
          ? { tool: { name: "write_file", input: { file_path: "greeting.txt", content: "hello from the mock\n" } } }
          : undefined,
    );
    try {
      const req = await submit("write", "write the greeting");
      expect(req.path).toBe(`/v1beta/models/${GEMINI_MODEL}:streamGenerateContent`);
      await screenShows("write", DECISION_RE);
      await waitFor(() => g.vx.calls().some((c) => c.event === "Notification"), 30_000, "the Notification hook");
      expect(existsSync(join(g.camp, "greeting.txt"))).toBe(false);
      tmux.keys("write", "Enter");
      await waitFor(() => g.vx.calls().some((c) => c.event === "AfterAgent"), 60_000, `the AfterAgent hook in ${JSON.stringify(g.vx.calls())}`);
      expect(readFileSync(join(g.camp, "greeting.txt"), "utf8")).toBe("hello from the mock\n");
      expect(models.turns().some(isFunctionResult)).toBe(true);
      const calls = g.vx.calls();
      expect(calls.map((c) => `${c.event} ${c.args}`)).toEqual([
        "SessionStart report idle",
        "BeforeAgent report working",
        "Notification report blocked",
        "AfterTool report working",
        "AfterAgent report idle",
      ]);
      for (const c of calls) expect([c.taskId, c.harness]).toEqual([g.taskId, "gemini"]);
      await screenShows("write", /the file is written/);
      await screenShows("write", READY_RE);
    } finally {
      models.respond(undefined);
    }
  });

  test("with HRD-04's args a run_shell_command runs with no dialog and the hooks report working, then idle", async () => {
    const g = await startGemini("shell", soldierArgs(GEMINI_MODEL));
    models.respond((r) =>
      isFunctionResult(r)
        ? { text: "the command ran" }
        : r.lastUser.includes("run the command")
          ? { tool: { name: "run_shell_command", input: { command: "echo ran > shell.txt", description: "write shell.txt" } } }
          : undefined,
    );
    try {
      await submit("shell", "run the command");
      await waitFor(() => g.vx.calls().some((c) => c.event === "AfterAgent"), 60_000, `the AfterAgent hook in ${JSON.stringify(g.vx.calls())}`);
      expect(readFileSync(join(g.camp, "shell.txt"), "utf8")).toBe("ran\n");
      expect(g.vx.calls().map((c) => `${c.event} ${c.args}`)).toEqual(["SessionStart report idle", "BeforeAgent report working", "AfterTool report working", "AfterAgent report idle"]);
      await screenShows("shell", /the command ran/);
    } finally {
      models.respond(undefined);
    }
  });
});
