// `vx demo`'s private world (CMD-DEMO-01/02): a temp dir with a throwaway project, HOME and tmux server, and a teardown that leaves
// none of it (the sentinel stopped only once its pid file, command line and state root say it is this demo's).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Deps } from "../deps";
import { VxError, errorMessage } from "../errors";
import { which } from "../exec";
import { stopSentinel as stopRootSentinel } from "../sentinel/stop";
import { tmuxFormatLiteral, tmuxLiteral } from "../backends/tmux/client";
import { DEMO_ENV } from "../harnesses/demo";
import { GUARDS } from "../time";

/** The demo runs vx's windows (settle grace, quick settle, polls) at this fraction of their length. */
export const DEMO_TIME_SCALE = "0.2";

export type World = {
  dir: string;
  home: string;
  project: string;
  /** The private tmux server's socket. */
  socket: string;
  /** The commander's pane on that server (the await needs one, as under a real tmux commander). */
  commanderPane: string;
  /** The environment every vx command of the demo runs with. */
  env: Record<string, string>;
  log: string;
};

export type Run = { code: number; stdout: string; stderr: string };

// What of the person's environment must not reach the demo: their tmux and herdr panes, vx's own
// settings, a harness session that would make the await a no-op, git settings aimed elsewhere.
const DROPPED = /^(TMUX|TMUX_PANE|TMUX_TMPDIR|HERDR_.*|VX_.*|CLAUDE_CODE_.*|CODEX_.*|GIT_.*|XDG_CONFIG_HOME)$/;

export function demoEnv(base: Deps["env"], dir: string, home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !DROPPED.test(k)) env[k] = v;
  // The machine's git config too (/etc/gitconfig: hooks, signing): the demo's HOME has none of its own.
  return { ...env, HOME: home, GIT_CONFIG_NOSYSTEM: "1", TMUX_TMPDIR: join(dir, "tmux"), VX_TIME_SCALE: DEMO_TIME_SCALE, [DEMO_ENV]: "1" };
}

/** CMD-DEMO-02: git and tmux are all the demo needs; either missing is one line naming it. */
export function checkTools(env: Deps["env"]): void {
  const missing = ["git", "tmux"].filter((t) => !which(t, env.PATH));
  if (missing.length) throw new VxError(`vx demo needs ${missing.join(" and ")} on PATH - install ${missing.join(" and ")}, then run vx demo again`);
}

export async function run(deps: Deps, argv: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return deps.exec.run(argv, { cwd, env, timeoutMs: GUARDS.tmuxCall });
}

async function must(deps: Deps, argv: string[], cwd: string, env: Record<string, string>): Promise<string> {
  const r = await run(deps, argv, cwd, env);
  if (r.code !== 0) throw new VxError(`vx demo: ${argv.slice(0, 3).join(" ")} failed: ${(r.stderr || r.stdout).trim().split("\n")[0]}`);
  return r.stdout;
}

/** The temp dirs of demos: `$TMPDIR/vx-demo-XXXXXX` (mkdtemp's six characters). */
export const DEMO_DIR_PREFIX = "vx-demo-";
/** The owning demo's pid; the next demo reaps a dir whose owner is gone, and a `--keep` teardown removes it so the dir stays. */
export const OWNER_FILE = "demo.pid";

/** The names of the world in `dir` (a demo's temp dir), made or not. */
export function worldAt(deps: Deps, dir: string): World {
  const home = join(dir, "home");
  const uid = process.getuid?.() ?? 0;
  const env = demoEnv(deps.env, dir, home);
  return { dir, home, project: join(dir, "shop"), socket: join(dir, "tmux", `tmux-${uid}`, "default"), commanderPane: "", env, log: join(dir, "commander.log") };
}

/** The temp dir and its names, owned by this process; nothing started yet (so a failure here leaves only the dir). */
export function makeWorld(deps: Deps): World {
  const w = worldAt(deps, realpathSync(mkdtempSync(join(tmpdir(), DEMO_DIR_PREFIX))));
  writeFileSync(join(w.dir, OWNER_FILE), `${deps.pid}\n`);
  mkdirSync(w.home, { mode: 0o700 });
  mkdirSync(w.project);
  return w;
}

/** A git project with two files on `main`, committed by a demo identity kept in its own config. */
export async function makeProject(deps: Deps, w: World): Promise<void> {
  const git = (...args: string[]) => must(deps, ["git", ...args], w.project, w.env);
  await git("init", "-q", "-b", "main");
  for (const [k, v] of [
    ["user.name", "vx demo"],
    ["user.email", "demo@vx.invalid"],
    ["commit.gpgsign", "false"],
  ])
    await git("config", k!, v!);
  writeFileSync(join(w.project, "README.md"), "# shop\n\nA throwaway project for vx demo.\n");
  writeFileSync(join(w.project, "greeting.txt"), "Hello.\n");
  await git("add", "-A");
  await git("commit", "-q", "-m", "A project to work on");
}

/** Commits what `vx init` wrote, so every camp starts from the same clean checkout. */
export async function commitAll(deps: Deps, w: World, message: string): Promise<void> {
  await must(deps, ["git", "add", "-A"], w.project, w.env);
  await must(deps, ["git", "commit", "-q", "-m", message], w.project, w.env);
}

/** The tmux server with the commander's pane; it keeps the demo's environment so soldier panes get VX_TIME_SCALE (a launch never passes it). */
export async function startTmux(deps: Deps, w: World): Promise<void> {
  writeFileSync(w.log, "");
  mkdirSync(join(w.socket, ".."), { recursive: true, mode: 0o700 });
  const out = await must(
    deps,
    [
      "tmux",
      "-S",
      w.socket,
      "new-session",
      "-d",
      "-P",
      "-F",
      "#{pane_id}",
      "-s",
      "commander",
      "-x",
      "160",
      "-y",
      "45",
      "-c",
      tmuxFormatLiteral(w.project),
      "tail",
      "-n",
      "+1",
      "-f",
      tmuxLiteral(w.log),
    ],
    w.project,
    w.env,
  );
  w.commanderPane = out.trim();
  w.env = { ...w.env, TMUX: `${w.socket},0,0`, TMUX_PANE: w.commanderPane };
}

/** Stops this demo's sentinel (only a live `vx sentinel` of this state root); what could not be stopped, named. */
export async function stopSentinel(deps: Deps, w: World): Promise<string | undefined> {
  return (await stopRootSentinel(deps, join(w.home, ".vexillum"))).left;
}

/** Kills the private tmux server; an error names what is left. */
export async function stopTmux(deps: Deps, w: World): Promise<string | undefined> {
  await run(deps, ["tmux", "-S", w.socket, "kill-server"], w.dir, w.env);
  const still = await run(deps, ["tmux", "-S", w.socket, "list-sessions"], w.dir, w.env);
  return still.code === 0 ? `the tmux server on ${w.socket} is still running` : undefined;
}

/** A teardown's steps in order, each run whatever the one before did; what each could not undo, named. */
export async function runSteps(steps: [string, () => Promise<string | undefined>][]): Promise<string[]> {
  const left: string[] = [];
  for (const [what, step] of steps) {
    try {
      const l = await step();
      if (l) left.push(l);
    } catch (err) {
      left.push(`${what}: ${errorMessage(err)}`);
    }
  }
  return left;
}

export function removeDir(w: World): void {
  rmSync(w.dir, { recursive: true, force: true });
}
