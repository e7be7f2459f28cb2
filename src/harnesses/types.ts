/**
 * What vx knows about one harness (HRN-01): every capability is a required member, so a harness
 * module that leaves one out does not compile.
 */
import type { BackendName } from "../backends/names";
import type { Check } from "../check";
import type { Exec } from "../exec";
import type { Commander } from "../state/schemas";
import type { HarnessName } from "./names";

/**
 * The extra harness args, env and files (all outside the camp) that make it run `vx report`;
 * `links`: symbolic links made beside the files (Gemini CLI's private home shares the user's
 * credentials and sessions through them).
 */
export type HookedLaunch = {
  args: string[];
  env: Record<string, string>;
  files: { path: string; content: string }[];
  links?: { path: string; target: string }[];
};

/** Where the state hooks go: the vx executable they run and the directory (outside the camp) for their files. */
type HookPlace = { vx: string; hooksDir: string };

/** What a harness may consult to find a soldier's conversation: its camp, and the caller's exec and environment (the soldier's too). */
export type ContinueCtx = { camp: string; exec: Exec; env: Record<string, string | undefined> };

/** One wake handed to a commander by the sentinel itself. */
export type Delivery = { ok: true } | { ok: false; error: string };

/**
 * How a commander hears a wake. `hook`: its own hook runs `vx sentinel await` (the sentinel only
 * writes the queue). `idle-prompt`: no async hook, so the sentinel types the wake into its herdr
 * pane, only while it is idle (CMDR-08). `queue`: the sentinel hands it to the harness's own queue
 * command (CMDR-09), falling back to the idle prompt after a spell of failures.
 */
export type Wake =
  | { kind: "hook" }
  | { kind: "idle-prompt" }
  | { kind: "queue"; send(run: { exec: Exec; env: Record<string, string | undefined>; cwd?: string; timeoutMs: number }, entry: Commander, text: string): Promise<Delivery> };

/** What `vx init` / `vx upgrade --scaffold-only` let a commander plan (the plan's own helpers). */
export type CommanderPlan = {
  top: string;
  /** True on `vx upgrade --scaffold-only`. */
  refresh: boolean;
  /** A wake template vx owns: refreshed only while unedited. */
  wakeFile(path: string, content: string, why: string): void;
  /** A JSON file merged by `merge` (a problem, not a write, when it is invalid). */
  json(path: string, merge: (x: unknown) => { next: unknown }, why: string): void;
  note(text: string): void;
  exists(path: string): boolean;
};

/**
 * CMDR-10: how vx finds and reads a hook-less commander of this harness in a plain tmux pane,
 * where no herdr names the pane's agent or says whether it is idle.
 */
export type TmuxCommanderRule = {
  /** An environment variable the harness sets on the commands it runs (its shell tool). */
  marker: string;
  /** A variable holding the harness's own pid, where it sets one (checked against `program`). */
  pidVar?: string;
  /** The harness's own process, by the basename of its first argv word. */
  program: RegExp;
  /** On screen while a turn runs. */
  busy: RegExp;
  /** What starts the input line, or each row of a box (one of these, where it changes with a mode). */
  mark: string | readonly string[];
  /** The rest of that line when it holds nothing the person typed (a placeholder, or nothing). */
  emptyInput: RegExp;
  /** Marked rows at the end of the input box that are not input (OpenCode's agent row); none when unset. */
  trailerRows?: number;
};

type CommanderSide = {
  readonly wake: Wake;
  /** True when the project holds this commander's wake files, looked after even when another harness commands. */
  installed(top: string): boolean;
  /** What init writes for it (called when it is the chosen commander or `installed`). */
  plan(p: CommanderPlan): void;
  /** Doctor's lines on its wake files (called when it is the chosen commander or `installed`). */
  fileChecks(top: string, cwd: string): Check[];
  /** Doctor's lines that run programs, only for the project's commander (Codex's sandbox). */
  liveChecks(run: { env: Record<string, string | undefined>; top: string; root: string; gitDir: () => Promise<string> }): Promise<Check[]>;
  /**
   * AWT-01: the session that owns an await cannot be woken (print mode): the await exits at once.
   * `ownerCommand` is the owner's command line when known.
   */
  nonInteractive(env: Record<string, string | undefined>, ownerCommand?: string): boolean;
  /**
   * AWT-12: true when `ownerCommand` (an await's owner, AWT-06) is this harness and it starts a new
   * await only after a model turn, so a day-long await ends with one re-arm wake instead of quietly.
   */
  rearmsByTurn(ownerCommand: string, env: Record<string, string | undefined>): boolean;
  /** CMDR-10: its plain-tmux-pane rules; undefined when it is never woken that way (it has a hook). */
  readonly tmuxCommander: TmuxCommanderRule | undefined;
};

export interface Harness {
  readonly name: HarnessName;
  /** As people know it (doctor's lines). */
  readonly label: string;
  /** Its executable on PATH (doctor; the tmux launch runs it, herdr's `agent start` is given `name`). */
  readonly exe: string;
  /** The program a tmux pane runs before its arguments: `[exe]`, or vx itself (`self`) for the demo soldier. */
  program(self: readonly string[]): string[];
  /** HRD-04: the soldier's own arguments, with model and effort only when set. */
  soldierArgs(model?: string, effort?: string): string[];
  /** TMX-05: the state hooks configured from outside the camp (without vx's own VX_* variables). */
  stateHooks(place: HookPlace): HookedLaunch;
  /**
   * What its screen shows once it takes input on tmux; `still` when it has no fixed text and a
   * screen that stops changing (and is no dialog) counts instead.
   */
  readonly ready: RegExp | "still";
  /**
   * A submitted prompt still sitting in its input box (the harness dropped the Enter): a tmux
   * paste presses Enter again while the screen shows it. Undefined when Enter is never lost.
   */
  readonly unsent: RegExp | undefined;
  /**
   * HRD-04/08: variables (no secrets) a soldier runs with on either terminal, over the dispatcher's
   * environment; on tmux they also come with its state hooks' `env`.
   */
  readonly soldierEnv?: Readonly<Record<string, string>>;
  /** CMD-DISPATCH-01 / HRD-04: throws a UsageError for a model or effort this harness refuses. */
  checkModelEffort(model: string | undefined, effort: string | undefined): void;
  /** A refusal before a camp is leased (the harness would die in its pane, or not run on `backend`), else undefined. */
  launchRefusal(env: Record<string, string | undefined>, backend: BackendName): string | undefined;
  /**
   * CMD-RESUME-01 (`vx resume`): the arguments, put before its soldier arguments, that make it
   * continue the soldier's own last conversation in `ctx.camp`; undefined when there is none to
   * continue (it then starts afresh in the camp with the original prompt). Throws a VxError, saying
   * what, when a lookup fails; nothing has changed by then.
   */
  continueArgs(ctx: ContinueCtx): Promise<string[] | undefined>;
  /** As a commander: its wake path, what init writes, what doctor checks. */
  readonly commander: CommanderSide;
}
