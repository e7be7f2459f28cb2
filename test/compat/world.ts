/**
 * One compat world: a temp HOME, a real git project initialized by the compiled vx, herdr (the
 * fake, or the real 0.8.2 started with the world's environment) and vx on PATH, the mock model
 * server, and a private tmux server whose panes see exactly this world's environment.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { procEnviron } from "../../src/procs";
import { type Queue, taskWithWake } from "../await-kit";
import { installFakeHerdr } from "../fakes/herdr-control";
import { type RealHerdr, realHerdrBinary, startRealHerdr } from "../herdr-real";
import { VX_BIN, alive, processTable, sandbox, stopSentinels, vx, waitFor, writeExecutable } from "../helpers";
import { HARNESSES, LISTED_HARNESS_NAMES } from "../../src/harnesses";
import { type HarnessName, harness } from "./harnesses";
import { startMockGemini } from "./mock-gemini";
import { type LoggedRequest, type MockModels, startMockModels } from "./mock-models";
import { herdrTerminal } from "./herdr-term";
import { type Terminal, type Tmux, startTmux } from "./tmux";

export type World = Queue & {
  exe: string;
  models: MockModels;
  tmux: Tmux;
  /** The real herdr, in a world made with `herdr: "real"`. */
  herdr?: RealHerdr;
  /** Where the test plays the person (`say`, `screenShows`): the real herdr's panes by id, else tmux's by session name. */
  term: Terminal;
  /** The vx every hook and extension runs (a link to dist/vx in the world's bin). */
  vxPath: string;
  /** Live `vx sentinel await` processes of this world, from `ps` (not from the registry). */
  awaits(): number[];
  awaiterRecords(): string[];
  sentinelPid(): number | undefined;
  close(): Promise<void>;
};

export type WorldOptions = {
  harness: HarnessName;
  commander: "claude" | "pi" | "opencode" | "codex" | "copilot" | "gemini";
  env?: Record<string, string>;
  /**
   * `real`: the real herdr instead of the fake, started once the world is prepared with its
   * environment, as from the person's login (its panes inherit it); no pane variables preset.
   */
  herdr?: "fake" | "real";
  /** The width of the world's tmux panes (default: wide, WIDE_COLUMNS). */
  columns?: number;
  /**
   * Runs once the world exists and before its tmux server starts (the server keeps the environment
   * it started with): seeds the harness's config and returns environment additions.
   */
  prepare?: (w: Pick<World, "home" | "project" | "bin" | "env" | "models" | "root" | "stateDir">) => Record<string, string> | void;
};

export async function world(opts: WorldOptions): Promise<World> {
  const exe = await harness(opts.harness);
  const s = sandbox();
  // Gemini CLI speaks only the Gemini API.
  const models = opts.harness === "gemini" ? startMockGemini() : startMockModels();
  const real = opts.herdr === "real";
  if (real) symlinkSync(realHerdrBinary(), join(s.bin, "herdr"));
  const fake = real ? {} : installFakeHerdr(s.bin, { stateDir: join(s.home, "..", "herdr") });
  const vxPath = join(s.bin, "vx");
  symlinkSync(VX_BIN, vxPath);
  // Harnesses leave files in the temp dir (Gemini CLI a gemini-shell-* dir per shell call,
  // OpenCode's runtime its native library, Claude Code its claude-<uid> dir): a TMPDIR inside the
  // sandbox is removed with the world, not left in the machine's /tmp. Codex 0.171 still puts its
  // daemon's socket in /tmp/codex-daemon-<uid> whatever TMPDIR says.
  // The listed harnesses this world does not install stand in last on PATH, never shadowing a real
  // one: `vx dispatch` (run by a commander under test, for its registration) checks its soldier's
  // program is there before it starts anything, and a stand-in that is run fails as a missing one would.
  const standIns = join(s.home, "..", "stand-ins");
  mkdirSync(standIns, { recursive: true });
  const path = `${s.bin}:${dirname(exe)}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
  for (const name of LISTED_HARNESS_NAMES) {
    const program = HARNESSES[name].exe;
    if (!Bun.which(program, { PATH: path })) writeExecutable(join(standIns, program), `#!/bin/sh\necho "${program}: not installed in this compat world" >&2\nexit 127\n`);
  }
  Object.assign(s.env, {
    ...fake,
    TMPDIR: privateTmp(s.home),
    PATH: `${path}:${standIns}`,
    ...(real ? {} : { HERDR_WORKSPACE_ID: "w1", HERDR_PANE_ID: "w1:p1" }),
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    ...opts.env,
  });
  const init = await vx(["init", "--yes", "--commander", opts.commander], { cwd: s.project, env: s.env });
  if (init.code !== 0) throw new Error(`vx init failed: ${init.stderr}`);
  const root = join(s.home, ".vexillum");
  const stateDir = join(root, "projects", readdirSync(join(root, "projects"))[0] as string);
  Object.assign(s.env, opts.prepare?.({ ...s, models, root, stateDir }) ?? {});
  const herdr = real ? await startRealHerdr({ env: { ...s.env } }) : undefined;
  if (herdr) s.env.HERDR_SOCKET_PATH = herdr.socket;
  const tmux = startTmux(s.env, opts.columns);
  const awaitersDir = join(root, "sentinel-awaiters");
  const w: World = Object.assign(s, {
    exe,
    models,
    tmux,
    herdr,
    term: herdr ? herdrTerminal(herdr) : tmux,
    vxPath,
    root,
    stateDir,
    wakes: join(stateDir, "wakes"),
    awaits: () => processesRunning(`${vxPath} sentinel await`),
    awaiterRecords: () => {
      try {
        return readdirSync(awaitersDir).filter((n) => n.endsWith(".json"));
      } catch {
        return [];
      }
    },
    sentinelPid: () => {
      try {
        const pid = Number(readFileSync(join(root, "sentinel.pid"), "utf8").trim());
        return pid > 0 && alive(pid) ? pid : undefined;
      } catch {
        return undefined;
      }
    },
    async close() {
      // A stopped herdr server takes its panes' programs with it.
      await herdr?.stop();
      w.tmux.close();
      models.stop();
      // Awaits end with their owner; wait for that rather than signalling them.
      await waitFor(() => w.awaits().length === 0, 15_000, "every await to end with its harness").catch(() => {});
      await stopSentinels(s.home);
      // A harness told to quit by its pane closing may still be saving its session into HOME
      // (Copilot CLI wrote ~/.copilot after the sandbox was gone): wait for every process this
      // world's environment started to end before removing it.
      await waitFor(() => homeProcesses(s.home).length === 0, 15_000, "the world's processes to end").catch(() => {});
      // Anything still running from this world's HOME or its own temp dir (a harness daemon, say) is ours.
      const base = dirname(s.home);
      for (const pid of new Set([...homeProcesses(s.home), ...processesRunning(base, true)])) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Gone already.
        }
      }
      s[Symbol.dispose]();
    },
  });
  return w;
}

/** A temp dir inside the sandbox whose HOME is `home`, for a harness's TMPDIR (removed with it). */
export function privateTmp(home: string): string {
  const tmp = join(home, "..", "tmp");
  mkdirSync(tmp, { recursive: true });
  return tmp;
}

/** Pids whose environment has this HOME: everything a world's panes and hooks started. */
export function homeProcesses(home: string): number[] {
  return readdirSync("/proc")
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid !== process.pid && procEnviron(pid)?.HOME === home && alive(pid));
}

/**
 * Pids whose full command line starts with `prefix` (a world's own vx path makes it unique), or
 * with `anywhere`, contains it.
 */
export function processesRunning(prefix: string, anywhere = false): number[] {
  return processTable()
    .filter(([, args]) => (anywhere ? args.includes(prefix) : args.startsWith(prefix)))
    .map(([pid]) => pid);
}

/** Waits for a model request whose last user message contains `text`; returns it. */
export function requestWith(w: World, text: string, after = 0, timeoutMs = 60_000) {
  return waitFor(() => w.models.turns().find((r) => r.at >= after && r.lastUser.includes(text)), timeoutMs, `a model request holding ${JSON.stringify(text)}`);
}

/** Waits for the pane's screen to match; the screen goes into the error when it never does. */
export async function screenShows(w: World, name: string, re: RegExp, timeoutMs = 60_000): Promise<string> {
  try {
    return await waitFor(
      () => {
        const s = w.term.screen(name);
        return re.test(s) ? s : undefined;
      },
      timeoutMs,
      `the screen to show ${re}`,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- screen ---\n${w.term.screen(name)}`);
  }
}

/** The line of a wake's reason text that names the task (see taskWithWake). */
export const wakeOf = (id: string) => `mission ${id}: running -> done`;

/** How long a person takes between seeing their text typed and pressing Enter, at the quickest. */
const PERSON_PACE_MS = 150;

/**
 * Types a user turn into the pane, submits it once it shows, and waits for the model to get it.
 * Like a person, it presses Enter again when no request came and the text still shows: a real
 * Gemini CLI under load once kept a typed turn in its input box after its Enter (CI), and the
 * turn never went. An Enter on an input already sent is empty, which every harness ignores.
 */
export async function say(w: World, pane: string, text: string): Promise<void> {
  w.term.type(pane, text);
  await screenShows(w, pane, new RegExp(text));
  // A person's pace, not a wait for anything: the screen is polled every 20 ms, and Gemini CLI takes
  // an Enter within 40 ms of a burst of typed characters for part of a paste (a newline).
  await Bun.sleep(PERSON_PACE_MS);
  w.term.keys(pane, "Enter");
  const deadline = Date.now() + 90_000;
  for (let presses = 1; ; presses++) {
    const got = await requestWith(w, text, 0, 15_000).catch(() => undefined);
    if (got) return;
    if (Date.now() > deadline || presses >= 4 || !w.term.screen(pane).includes(text)) break;
    console.log(`compat: ${pane}: no request ${presses * 15} s after Enter with the text still shown; Enter again`);
    w.term.keys(pane, "Enter");
  }
  await requestWith(w, text, 0, 30_000);
}

/**
 * A wake written while the commander is mid-turn (the mock holds its answer for 4 s) must reach
 * the model only after that turn: returns the request, for its latency.
 */
export async function wakeDuringBusyTurn(w: World, pane: string, harness: string, id: string): Promise<LoggedRequest> {
  const holdMs = 4000;
  w.models.respond((r) => (r.lastUser.includes("a slow question") ? { text: "slow answer", delayMs: holdMs } : undefined));
  try {
    await say(w, pane, "a slow question");
    const slow = w.models.turns().find((r) => r.lastUser.includes("a slow question"));
    if (!slow) throw new Error("the slow turn was not seen");
    const t0 = Date.now();
    taskWithWake(w, id);
    const req = await requestWith(w, wakeOf(id), t0, 40_000);
    console.log(`compat: ${harness} busy wake file -> model request: ${req.at - t0} ms (turn ended ${slow.at + holdMs - t0} ms after the wake)`);
    if (req.at < slow.at + holdMs) throw new Error(`the wake reached the model ${slow.at + holdMs - req.at} ms before the running turn ended`);
    return req;
  } finally {
    w.models.respond(undefined);
  }
}
