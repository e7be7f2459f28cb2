/**
 * The backend registry's static side: per backend, the words notes use for its panes, what a task
 * records of its soldier, and CMD-DISPATCH-02's check. Light on purpose (no client, no launch code),
 * so the pure decisions and the commands' checks read it without loading a backend.
 */
import { VxError } from "../errors";
import { which } from "../exec";
import type { Task } from "../state/schemas";
import { type BackendName, backendOf } from "./names";

/** SEN-18 and TMX-06: the notes of a soldier whose pane disappeared, in its backend's words. */
export const NOTE_AGENT_GONE =
  "[vexillum] this soldier's herdr agent disappeared (pane closed, or herdr restarted) - marked interrupted. Any work it already committed is still in its camp.";

export const NOTE_TMUX_GONE =
  "[vexillum] this soldier's tmux pane disappeared (session closed, harness exited, or tmux restarted) - marked interrupted. Any work it already committed is still in its camp.";

export type BackendTraits = {
  readonly name: BackendName;
  /** The program every call to this backend runs, found on PATH (the sentinel's PATH check, SEN-23). */
  readonly program: string;
  /** How notes and refusals name the soldier's pane. */
  readonly pane: string;
  /** What `vx strike` reports it closed. */
  readonly closed: string;
  /** What a launch that died may have left behind (the sentinel's log). */
  readonly leftover: string;
  /** The note of a soldier that disappeared (SEN-18, TMX-06). */
  readonly goneNote: string;
  /** True when the task records where its soldier is (the reopen pass needs that, SEN-20). */
  recorded(task: Task): boolean;
  /**
   * CMD-DISPATCH-02 before anything is written: throws when this backend cannot take a soldier
   * from here; returns the herdr workspace a launch creates its tab in.
   */
  check(env: Record<string, string | undefined>): string | undefined;
  /**
   * AWT-01: a commander's hook here has wakes to deliver: it runs in this backend's pane
   * (`configured`: the project's config names this backend, read only when needed).
   */
  commanderHere(env: Record<string, string | undefined>, configured: () => boolean): boolean;
};

/** CMD-DISPATCH-02, shared by redispatch. */
export const NO_WORKSPACE = "HERDR_WORKSPACE_ID is not set - run vx from inside a herdr pane, or use --backend tmux (vx init --backend tmux makes it this project's default)";

export const BACKEND_TRAITS = {
  herdr: {
    name: "herdr",
    program: "herdr",
    pane: "herdr pane",
    closed: "herdr pane",
    leftover: "tab",
    goneNote: NOTE_AGENT_GONE,
    recorded: (task) => Boolean(task.herdr_agent_name || task.herdr_pane_id),
    check(env) {
      const workspace = env.HERDR_WORKSPACE_ID;
      if (!workspace) throw new VxError(NO_WORKSPACE);
      return workspace;
    },
    commanderHere: (env) => Boolean(env.HERDR_WORKSPACE_ID),
  },
  tmux: {
    name: "tmux",
    program: "tmux",
    pane: "tmux pane",
    closed: "tmux session",
    leftover: "tmux session",
    goneNote: NOTE_TMUX_GONE,
    recorded: (task) => Boolean(task.tmux_target),
    // tmux needs only tmux on PATH, and works from any terminal.
    check(env) {
      if (!which("tmux", env.PATH)) throw new VxError("tmux not found in PATH, needed for --backend tmux - install tmux (or put it on PATH), then run the command again");
      return undefined;
    },
    // AWT-01's exception: a tmux pane, in a project configured for the tmux backend.
    commanderHere: (env, configured) => Boolean(env.TMUX_PANE) && configured(),
  },
} as const satisfies Record<BackendName, BackendTraits>;

/** The traits of the backend holding `task`'s soldier. */
export function traitsOf(task: Pick<Task, "backend">): BackendTraits {
  return BACKEND_TRAITS[backendOf(task)];
}
