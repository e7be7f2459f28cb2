/** tmux (TMX-01..06): a session per soldier on the user's server, its status from its own `vx report`s; any terminal. */
import { VxError } from "../../errors";
import { which } from "../../exec";
import type { Backend } from "../backend";
import { createTmuxClient, defaultSocket } from "./client";
import { identifyTmuxCommander, readCommanderScreen, tmuxCommanderLive, typeIntoCommander } from "./commander";
import { tmuxVersionCheck, unleasedHarnesses } from "./doctor";
import { killLeftSession } from "./leftovers";
import { tmuxBackend } from "./survey";
import { tmuxTerminal } from "./terminal";

/** TMX-06: the note of a soldier whose pane disappeared. */
export const NOTE_TMUX_GONE =
  "[vexillum] this soldier's tmux pane disappeared (session closed, harness exited, or tmux restarted) - marked interrupted. Any work it already committed is still in its camp.";

export const tmux = {
  name: "tmux",
  program: "tmux",
  pane: "tmux pane",
  closed: "tmux session",
  leftover: "tmux session",
  goneNote: NOTE_TMUX_GONE,
  present: (_env, onPath) => onPath("tmux"),
  check(env) {
    if (!which("tmux", env.PATH)) throw new VxError("tmux not found in PATH, needed for --backend tmux - install tmux (or put it on PATH), then run the command again");
    return undefined;
  },
  // AWT-01's exception: a tmux pane, in a project configured for the tmux backend.
  commanderHere: (env, configured) => Boolean(env.TMUX_PANE) && configured(),

  recorded: (task) => Boolean(task.tmux_target),
  hasPane: (task) => Boolean(task.tmux_target),
  soldierName: (task) => task.tmux_target,
  paneName: (task) => task.tmux_target ?? task.tmux_pane_id,
  launchLine: (t) => (t.tmux_target && t.status !== "failed" ? `tmux: session=${t.tmux_target} cwd=${t.camp_path ?? ""} branch=${t.camp_branch ?? ""} gate=ok` : undefined),
  // The launch saves the session it intends (server and name) itself, before making it.
  intent: () => ({}),
  relaunch: (_task, _where, sameServer) => ({
    tmux_target: undefined,
    tmux_session_id: undefined,
    tmux_pane_id: undefined,
    ...(sameServer ? {} : { tmux_socket: undefined }),
  }),

  terminal: (deps, paths, rules) => tmuxTerminal(deps, paths, rules),
  survey: {
    listsCommanders: false,
    backend: (deps) => tmuxBackend((socket) => createTmuxClient({ exec: deps.exec, env: deps.env, socket }), defaultSocket(deps.env)),
  },
  doctor: async (deps, exe, required) => (required ? [await tmuxVersionCheck(deps, exe)] : []),
  strays: (pool, tasks, deps) => unleasedHarnesses(pool, tasks, deps.exec, deps.env),
  closeLeft: (deps, task) => killLeftSession(createTmuxClient({ exec: deps.exec, env: deps.env, socket: task.tmux_socket }), task),
  // CMDR-10: a hook-less commander running vx from a plain tmux pane: its pane, server and own pid.
  async callingCommander(deps, ctx) {
    const found = await identifyTmuxCommander(deps.env, deps.ppid(), deps.exec);
    if (!found) return undefined;
    const entry = { tmux_pane: found.pane, tmux_socket: found.socket, pid: found.pid };
    return { pane: found.pane, project: ctx.project, harness: found.harness, entry, marksTasks: false };
  },
  commanderPane: (entry) => entry.tmux_pane,
  // CMDR-10: without herdr, live means its own process still runs in its registered tmux pane.
  async findCommander(ctx, harness, entry) {
    if (!(await tmuxCommanderLive(harness, entry, ctx.exec, ctx.env))) return undefined;
    return {
      pane: `${entry.tmux_pane} (tmux)`,
      via: " typed into its tmux pane",
      idle: async () => (await readCommanderScreen(ctx.exec, ctx.env, harness, entry)).idle,
      type: (text) => typeIntoCommander(ctx.exec, ctx.env, harness, entry, text, ctx.clock),
    };
  },
} satisfies Backend;
